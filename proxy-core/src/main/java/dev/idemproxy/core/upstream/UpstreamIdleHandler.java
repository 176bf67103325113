package dev.idemproxy.core.upstream;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Fires {@link IdleStateEvent#FIRST_ALL_IDLE_STATE_EVENT} when an upstream connection has neither
 * read nor flushed for {@code idleNanos}, then {@link IdleStateEvent#ALL_IDLE_STATE_EVENT} every
 * further period it stays so.
 *
 * <p>It replaces Netty's {@code IdleStateHandler} on this leg, which counts a write only when
 * it completes and so adds a promise and a listener to every write (two per proxied call).
 * Here a flush is the activity: the proxy flushes only what the client sent, and stops doing
 * so when the upstream stops reading (the client's reading pauses on back-pressure), so a
 * stalled upload still goes idle. One timer per connection, moved only when it fires.
 * Not thread-safe: used only on the channel's event loop.
 */
final class UpstreamIdleHandler extends ChannelDuplexHandler {
    private final long idleNanos;
    private long lastActivity;
    private boolean firstEvent = true;
    private ScheduledFuture<?> check;

    UpstreamIdleHandler(long idleNanos) {
        if (idleNanos <= 0) {
            throw new IllegalArgumentException("idleNanos: " + idleNanos + " (expected: > 0)");
        }
        this.idleNanos = idleNanos;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive() && ctx.channel().isRegistered()) {
            start(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        start(ctx);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        stop();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        lastActivity = ctx.executor().ticker().nanoTime();
        firstEvent = true;
        ctx.fireChannelReadComplete();
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        lastActivity = ctx.executor().ticker().nanoTime();
        firstEvent = true;
        ctx.flush();
    }

    private void start(ChannelHandlerContext ctx) {
        if (check != null) {
            return;
        }
        lastActivity = ctx.executor().ticker().nanoTime();
        check = ctx.executor().schedule(() -> onCheck(ctx), idleNanos, TimeUnit.NANOSECONDS);
    }

    private void stop() {
        if (check != null) {
            check.cancel(false);
            check = null;
        }
    }

    private void onCheck(ChannelHandlerContext ctx) {
        if (check == null || !ctx.channel().isOpen()) {
            return;
        }
        long left = idleNanos - (ctx.executor().ticker().nanoTime() - lastActivity);
        if (left > 0) {
            check = ctx.executor().schedule(() -> onCheck(ctx), left, TimeUnit.NANOSECONDS);
            return;
        }
        check = ctx.executor().schedule(() -> onCheck(ctx), idleNanos, TimeUnit.NANOSECONDS);
        IdleStateEvent event = firstEvent ? IdleStateEvent.FIRST_ALL_IDLE_STATE_EVENT : IdleStateEvent.ALL_IDLE_STATE_EVENT;
        firstEvent = false;
        ctx.fireUserEventTriggered(event);
    }
}
