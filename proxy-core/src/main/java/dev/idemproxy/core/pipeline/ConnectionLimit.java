package dev.idemproxy.core.pipeline;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the client connections open on one listener against {@code limits.maxConnections}.
 * A connection is counted from its admission until it closes. This class is thread-safe: the
 * channels of all event loops share it.
 */
final class ConnectionLimit {
    private final int max;
    private final AtomicInteger open = new AtomicInteger();
    private final ChannelFutureListener closed = f -> open.decrementAndGet();

    ConnectionLimit(int max) {
        this.max = max;
    }

    /** Admits {@code ch} (counted until it closes), or returns false when {@code max} are open already. */
    boolean admit(Channel ch) {
        if (open.incrementAndGet() > max) {
            open.decrementAndGet();
            return false;
        }
        ch.closeFuture().addListener(closed);
        return true;
    }

    int open() {
        return open.get();
    }
}
