package dev.idemproxy.core.upstream;

import io.netty.channel.Channel;

/**
 * One upstream connection leased to one call. The call writes through {@link #channel()} and
 * ends the lease exactly once with {@link #release(boolean)}. Not thread-safe: used on the
 * channel's event loop only.
 */
public final class UpstreamConnection {
    private final Channel channel;
    private final UpstreamPool pool;
    private final UpstreamHandler handler;
    private boolean released;

    UpstreamConnection(Channel channel, UpstreamPool pool, UpstreamHandler handler) {
        this.channel = channel;
        this.pool = pool;
        this.handler = handler;
    }

    public Channel channel() {
        return channel;
    }

    /**
     * Ends the lease: back to the pool when {@code reusable} (the exchange ended cleanly on both
     * sides and neither side asked to close), else closed.
     */
    public void release(boolean reusable) {
        if (released) {
            return;
        }
        released = true;
        handler.detach();
        channel.config().setAutoRead(true);
        if (reusable) {
            pool.release(channel, handler);
        } else {
            channel.close();
        }
    }
}
