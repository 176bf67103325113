package dev.idemproxy.core.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP server on a free loopback port that is not a Redis: to every connection it writes a fixed
 * answer once the client has sent something (as an HTTP server answers a request it cannot read;
 * an answer written before the client's first command could reach it after the client saw the
 * close, or be read with no command waiting for it) and closes it; with no answer it closes every
 * connection at once; or, {@link #silent()}, it keeps
 * every connection open and says nothing. For the store's tests of a URI
 * pointed at the wrong kind of server. Thread-safe; one daemon thread accepts.
 */
public final class LoopbackServer implements AutoCloseable {
    private final ServerSocket socket;
    /** A silent server's connections, closed with it. */
    private final List<Socket> held = new CopyOnWriteArrayList<>();

    private LoopbackServer(ServerSocket socket, byte[] answer) {
        this.socket = socket;
        Thread acceptor = new Thread(() -> {
            while (!socket.isClosed()) {
                try {
                    Socket s = socket.accept();
                    if (answer == null) {
                        held.add(s);
                        continue;
                    }
                    try (s) {
                        if (answer.length > 0) {
                            s.setSoTimeout(10_000);
                            s.getInputStream().read();  // the client's first byte: its handshake has begun
                        }
                        s.getOutputStream().write(answer);
                        s.getOutputStream().flush();
                    }
                } catch (IOException closedOrReset) {
                    // the next one, or closed
                }
            }
        }, "loopback-server-" + socket.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A server that writes {@code answer} (ASCII; empty: nothing) to each connection and closes it. */
    public static LoopbackServer answering(String answer) {
        try {
            return new LoopbackServer(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()),
                    answer.getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A server that accepts every connection and never answers nor closes it (until {@link #close()}). */
    public static LoopbackServer silent() {
        try {
            return new LoopbackServer(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return socket.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        socket.close();
        for (Socket s : held) {
            s.close();
        }
    }
}
