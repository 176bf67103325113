package dev.idemproxy.core.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

/**
 * A loopback port that drops every SYN, as a firewall or a host gone from the network does, made
 * without root: a listening socket that never accepts, its accept queue filled by connections of
 * its own. Linux then drops further SYNs (with {@code tcp_abort_on_overflow} 0, its default), so a
 * connect there neither succeeds nor is refused until it times out. Not thread-safe.
 */
public final class LoopbackBlackhole implements AutoCloseable {
    private static final int MAX_FILLERS = 64;

    private final ServerSocket listener;
    private final List<Socket> fillers = new ArrayList<>();

    private LoopbackBlackhole(ServerSocket listener) {
        this.listener = listener;
    }

    /** Fills a backlog-1 listener until a connect to it times out; fails when the kernel never drops one. */
    public static LoopbackBlackhole open() {
        LoopbackBlackhole b = null;
        try {
            b = new LoopbackBlackhole(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
            for (int i = 0; i < MAX_FILLERS; i++) {
                Socket s = new Socket();
                try {
                    s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), b.port()), 200);
                    b.fillers.add(s);
                } catch (SocketTimeoutException dropped) {
                    s.close();
                    return b;
                }
            }
            throw new IllegalStateException("the kernel accepted " + MAX_FILLERS + " connections on a backlog of 1");
        } catch (IOException e) {
            closeQuietly(b);
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            closeQuietly(b);
            throw e;
        }
    }

    public int port() {
        return listener.getLocalPort();
    }

    @Override
    public void close() {
        for (Socket s : fillers) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing
            }
        }
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    private static void closeQuietly(LoopbackBlackhole b) {
        if (b != null) {
            b.close();
        }
    }
}
