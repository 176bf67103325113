package dev.idemproxy.core.pipeline;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;

/**
 * Lets one request at a time past it. A pipelined request that arrives while the previous
 * response is still being written waits here (reading pauses) and is released when that
 * response ends, so responses can never be reordered. Ownership: queued messages are held
 * retained and passed on later, or released when the channel closes.
 * Not thread-safe: one instance per channel.
 */
final class RequestSequencer extends ChannelDuplexHandler {
    private static final int MAX_QUEUED = 1024;

    private final ArrayDeque<Object> queue = new ArrayDeque<>();
    private boolean busy;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!queue.isEmpty() || (busy && ExchangeTracker.isRequestHead(msg))) {
            if (queue.size() >= MAX_QUEUED) {
                ReferenceCountUtil.release(msg);
                ctx.close();
                return;
            }
            queue.add(msg);
            ctx.channel().config().setAutoRead(false);
            return;
        }
        if (ExchangeTracker.isRequestHead(msg)) {
            busy = true;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        boolean ends = ExchangeTracker.endsResponse(msg);
        ctx.write(msg, promise);
        if (ends) {
            busy = false;
            // Runs when a pipelined request waits, and also when reading is paused: it resumes
            // reading that a call paused (ForwardHandler's connect and failure paths rely on it).
            // With nothing queued and reading on there is nothing to do (the common case).
            if (!queue.isEmpty() || !ctx.channel().config().isAutoRead()) {
                ctx.executor().execute(() -> drain(ctx));
            }
        }
    }

    private void drain(ChannelHandlerContext ctx) {
        if (!ctx.channel().isActive()) {
            return;
        }
        Object next;
        while (!busy && (next = queue.poll()) != null) {
            if (ExchangeTracker.isRequestHead(next)) {
                busy = true;
            }
            ctx.fireChannelRead(next);
        }
        while (busy && !queue.isEmpty() && !ExchangeTracker.isRequestHead(queue.peek())) {
            ctx.fireChannelRead(queue.poll());
        }
        if (queue.isEmpty()) {
            ctx.fireChannelReadComplete();
            ctx.channel().config().setAutoRead(true);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        release();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        release();
    }

    private void release() {
        Object o;
        while ((o = queue.poll()) != null) {
            ReferenceCountUtil.release(o);
        }
    }
}
