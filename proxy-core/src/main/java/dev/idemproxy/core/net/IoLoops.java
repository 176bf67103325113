package dev.idemproxy.core.net;

import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import io.netty.channel.EventLoopGroup;
import java.util.concurrent.TimeUnit;

/**
 * The proxy's I/O event loops ({@code server.ioThreads} of them), made before anything that uses
 * them and closed after the last of those: the proxy's client and upstream connections and, when
 * the transports match, the Redis store's connections. Sharing them puts a store command, its
 * answer and the call that waits for it on one thread, with no hand-off between threads (and no
 * wake-up) on either side of every store round trip. Thread-safe.
 */
public final class IoLoops implements AutoCloseable {
    private final Transport transport;
    private final int threads;
    private final EventLoopGroup group;

    private IoLoops(Transport transport, int threads) {
        this.transport = requireNonNull(transport, "transport");
        requireArgument(threads >= 1, "threads " + threads + " (expected: >= 1)");
        this.threads = threads;
        this.group = transport.newGroup(threads, "idemproxy-io");
    }

    /** {@code threads} event loops on the best transport ({@link Transport#best()}). */
    public static IoLoops start(int threads) {
        return new IoLoops(Transport.best(), threads);
    }

    /**
     * {@code threads} event loops on the transport {@code choice} selects.
     *
     * @throws IllegalStateException when the chosen native transport cannot run here
     */
    public static IoLoops start(Transport.Choice choice, int threads) {
        return new IoLoops(Transport.select(choice), threads);
    }

    public Transport transport() {
        return transport;
    }

    public int threads() {
        return threads;
    }

    public EventLoopGroup group() {
        return group;
    }

    /** Stops the loops, letting queued tasks run for up to 2 s. Blocking; idempotent. */
    @Override
    public void close() {
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
