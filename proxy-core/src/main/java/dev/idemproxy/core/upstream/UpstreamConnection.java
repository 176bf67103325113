package dev.idemproxy.core.upstream;

import static java.util.Objects.requireNonNull;

import io.netty.channel.Channel;

/**
 * One upstream connection leased to one call. The call writes through {@link #channel()} and
 * ends the lease exactly once with {@link #release(boolean)}. Not thread-safe: used on the
 * channel's event loop only.
 */
public final class UpstreamConnection {
    /** Where a connection whose exchange ended cleanly goes back to (a pool); the connection is detached first. */
    @FunctionalInterface
    public interface Home {
        void takeBack(Channel channel);
    }

    private final Channel channel;
    private final Home home;
    private final UpstreamHandler handler;
    private boolean released;

    UpstreamConnection(Channel channel, Home home, UpstreamHandler handler) {
        this.channel = channel;
        this.home = home;
        this.handler = handler;
    }

    /**
     * Leases {@code channel}, whose pipeline ends with {@link UpstreamPipeline#addHttp}'s handlers,
     * to {@code listener}: for connectors other than the pools.
     *
     * @param home where {@link #release release(true)} hands the channel back
     */
    public static UpstreamConnection lease(Channel channel, UpstreamListener listener, Home home) {
        UpstreamHandler h = requireNonNull(channel.pipeline().get(UpstreamHandler.class), "the channel's UpstreamHandler");
        h.attach(listener);
        return new UpstreamConnection(channel, requireNonNull(home, "home"), h);
    }

    public Channel channel() {
        return channel;
    }

    /**
     * Ends the lease: back to its home when {@code reusable} (the exchange ended cleanly on both
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
            home.takeBack(channel);
        } else {
            channel.close();
        }
    }
}
