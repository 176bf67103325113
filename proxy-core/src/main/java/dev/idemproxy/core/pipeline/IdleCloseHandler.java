package dev.idemproxy.core.pipeline;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.IdleStateEvent;

/**
 * Closes a client connection when it has no call in flight and either stayed silent for the
 * idle time or the server is draining; a slow upstream never gets its caller cut off here.
 * A client that goes silent in the middle of sending a request body
 * is closed after the idle time too: nothing else would ever end that wait, since a protected
 * call buffers its body before anything is forwarded.
 * Ownership: passes every message on. Not thread-safe: one instance per channel.
 */
final class IdleCloseHandler extends ChannelDuplexHandler {
    private int open;
    private boolean draining;
    /** A request head was read and its last content not yet. */
    private boolean receiving;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (ExchangeTracker.isRequestHead(msg)) {
            open++;
            receiving = true;
        }
        if (msg instanceof LastHttpContent) {
            receiving = false;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (ExchangeTracker.endsResponse(msg) && open > 0) {
            open--;
            if (open == 0 && draining) {
                ctx.write(msg, promise).addListener(ChannelFutureListener.CLOSE);
                return;
            }
        }
        ctx.write(msg, promise);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent || evt == ServerDrainEvent.INSTANCE) {
            draining |= evt == ServerDrainEvent.INSTANCE;
            if (open == 0 || (receiving && evt instanceof IdleStateEvent)) {
                ctx.close();
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }
}
