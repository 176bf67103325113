package dev.idemproxy.core.upstream;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One event loop's idle connections to one origin, newest last. The newest is reused first, so
 * the oldest drift to the front, where a single sweep per loop closes those idle longer than
 * the timeout: returning a connection to the pool schedules nothing. Touched only from
 * {@code loop}; not thread-safe.
 */
final class IdleConnections {
    private final EventLoop loop;
    private final long timeoutNanos;
    private final ArrayDeque<Idle> idle = new ArrayDeque<>();
    private ScheduledFuture<?> sweep;

    IdleConnections(EventLoop loop, long timeoutNanos) {
        this.loop = loop;
        this.timeoutNanos = timeoutNanos;
    }

    int size() {
        return idle.size();
    }

    void add(Channel ch, UpstreamHandler handler) {
        idle.addLast(new Idle(ch, handler, loop.ticker().nanoTime()));
        if (sweep == null) {
            sweep = loop.schedule(this::sweep, timeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** The most recently returned connection, or null. */
    Idle pollNewest() {
        return idle.pollLast();
    }

    void closeAll() {
        Idle i;
        while ((i = idle.pollFirst()) != null) {
            i.channel.close();
        }
    }

    private void sweep() {
        sweep = null;
        long now = loop.ticker().nanoTime();
        while (!idle.isEmpty() && now - idle.peekFirst().since >= timeoutNanos) {
            idle.pollFirst().channel.close();
        }
        if (!idle.isEmpty()) {
            sweep = loop.schedule(this::sweep, timeoutNanos - (now - idle.peekFirst().since), TimeUnit.NANOSECONDS);
        }
    }

    /** A pooled connection with its pipeline's {@link UpstreamHandler}, so reuse looks nothing up. */
    static final class Idle {
        final Channel channel;
        final UpstreamHandler handler;
        final long since;

        Idle(Channel channel, UpstreamHandler handler, long since) {
            this.channel = channel;
            this.handler = handler;
            this.since = since;
        }
    }
}
