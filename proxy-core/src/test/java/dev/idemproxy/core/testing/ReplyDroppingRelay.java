package dev.idemproxy.core.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay on loopback in front of a server that can lose an answer the way a network or a
 * stopping server does: once {@link #dropNextReply() armed}, it still hands the client's next
 * bytes to the server, so the command runs there, but closes the connection instead of passing
 * the server's reply back. Later connections are relayed normally. One thread per direction.
 */
public final class ReplyDroppingRelay implements AutoCloseable {
    private final ServerSocket listener;
    private final int targetPort;
    private final AtomicBoolean dropNext = new AtomicBoolean();
    private final AtomicInteger dropped = new AtomicInteger();
    private final AtomicInteger held = new AtomicInteger();
    private volatile long holdMillis;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    public ReplyDroppingRelay(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "relay-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** The next reply the server sends on any connection is dropped, and that connection closed. */
    public void dropNextReply() {
        dropNextReplyAfter(0);
    }

    /**
     * As {@link #dropNextReply}, but the reply is first held for {@code millis} (the connection
     * stays open meanwhile), as when a server answers slowly and then goes away.
     */
    public void dropNextReplyAfter(long millis) {
        holdMillis = millis;
        dropNext.set(true);
    }

    /** How many replies are being held right now, before they are dropped. */
    public int holding() {
        return held.get();
    }

    /** How many replies were dropped so far. */
    public int dropped() {
        return dropped.get();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                sockets.add(client);
                sockets.add(server);
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2_000);
                pump(client, server, false);
                pump(server, client, true);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to, boolean replies) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[8192];
            try (from; to) {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buf)) >= 0) {
                    if (replies && dropNext.compareAndSet(true, false)) {
                        held.incrementAndGet();
                        if (holdMillis > 0) {
                            Await.realTime(java.time.Duration.ofMillis(holdMillis));  // the slow server's delay
                        }
                        dropped.incrementAndGet();
                        held.decrementAndGet();
                        return;  // the reply is lost with the connection
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // the other direction closed the pair
            }
        }, replies ? "relay-replies" : "relay-commands");
        t.setDaemon(true);
        t.start();
    }

    /** Stops accepting and closes every relayed connection: the server is unreachable from now on. */
    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
