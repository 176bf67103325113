package dev.idemproxy.core.sim;

import java.util.ArrayDeque;
import java.util.List;

/**
 * The upstream's end of one simulated connection. The bytes the proxy writes arrive in an inbox
 * and are read by the server only when the simulator delivers them (a request can still be in
 * flight when the proxy gives up on it, and then arrive and execute), parsed by {@link HttpBytes};
 * each request goes to {@link UpstreamBehaviour}, which answers through {@link #send} and
 * {@link #close}, now or at a later simulated time. Data that arrives after either side closed
 * is still read (TCP delivers it), but nothing can be answered then. Not thread-safe.
 */
final class UpstreamServer implements SimChannel.Peer {
    private final World world;
    private final UpstreamBehaviour behaviour;
    private final int id;
    private final ArrayDeque<byte[]> inbox = new ArrayDeque<>();
    private final HttpBytes reader = new HttpBytes(false);
    private SimChannel channel;
    private boolean closed;

    UpstreamServer(World world, UpstreamBehaviour behaviour, int id) {
        this.world = world;
        this.behaviour = behaviour;
        this.id = id;
    }

    void attach(SimChannel ch) {
        this.channel = ch;
    }

    int id() {
        return id;
    }

    @Override
    public void bytes(byte[] data) {
        world.trace.bytes(id, data);
        inbox.add(data);
    }

    @Override
    public void closedByProxy() {
        closed = true;
        world.trace.step("upClosed", id, 0, null);
    }

    @Override
    public void writeAfterClose(boolean byPeer) {
        if (!byPeer) {
            world.violation("write after close: the engine wrote on upstream connection #" + id + " after closing it");
        }
    }

    boolean readable() {
        return !inbox.isEmpty();
    }

    /** The server reads what arrived. */
    void read() {
        List<HttpBytes.Message> requests = reader.add(inbox.poll());
        for (HttpBytes.Message m : requests) {
            world.trace.step("upRequest", id, 0, m.line());
            behaviour.handle(this, m);
        }
    }

    boolean open() {
        return !closed;
    }

    /** Sends bytes towards the proxy (dropped once the connection is closed). */
    void send(byte[] data) {
        if (!closed) {
            channel.send(data);
        }
    }

    /** Sends {@code data} after {@code delayNanos} (now when 0). */
    void sendLater(long delayNanos, byte[] data) {
        if (delayNanos <= 0) {
            send(data);
        } else {
            world.at(delayNanos, "upSend", () -> send(data));
        }
    }

    /** Closes the upstream's end (a reset, or the end of a close-delimited answer), after {@code delayNanos}. */
    void close(long delayNanos) {
        Runnable c = () -> {
            if (!closed) {
                closed = true;
                channel.peerClose();
            }
        };
        if (delayNanos <= 0) {
            c.run();
        } else {
            world.at(delayNanos, "upClose", c);
        }
    }
}
