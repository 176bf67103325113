package dev.idemproxy.core.upstream;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;

/**
 * Tail of an upstream connection's pipeline: hands the decoded response to the current
 * {@link UpstreamListener}. Drops 1xx interim responses (the proxy answers
 * {@code Expect: 100-continue} itself). Data arriving with no listener (an idle pooled
 * connection) is unexpected: released and the connection closed. Ownership: contents are passed
 * to the listener, which releases them. Not thread-safe: used only on the channel's event loop.
 */
final class UpstreamHandler extends ChannelInboundHandlerAdapter {
    private UpstreamListener listener;
    private boolean inInterim;
    private Throwable failure;

    void attach(UpstreamListener l) {
        this.listener = l;
        this.inInterim = false;
    }

    void detach() {
        this.listener = null;
    }

    boolean isAttached() {
        return listener != null;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        UpstreamListener l = listener;
        if (l == null) {
            ReferenceCountUtil.release(msg);
            ctx.close();
            return;
        }
        if (msg instanceof HttpResponse) {
            HttpResponse r = (HttpResponse) msg;
            if (r.decoderResult().isFailure()) {
                ReferenceCountUtil.release(msg);
                failure = r.decoderResult().cause();
                ctx.close();
                return;
            }
            if (r.status().codeClass() == HttpStatusClass.INFORMATIONAL && r.status().code() != 101) {
                inInterim = true;
                ReferenceCountUtil.release(msg);
                return;
            }
            l.onResponseHead(r);
            if (!(msg instanceof HttpContent)) {
                return;
            }
        }
        if (msg instanceof HttpContent) {
            if (inInterim) {
                inInterim = !(msg instanceof LastHttpContent);
                ReferenceCountUtil.release(msg);
                return;
            }
            if (msg instanceof HttpResponse) {
                // A FullHttpResponse was passed as the head; hand over its content as well.
                l.onResponseContent(((HttpContent) msg));
                return;
            }
            l.onResponseContent((HttpContent) msg);
            return;
        }
        ReferenceCountUtil.release(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (listener != null) {
            listener.onReadComplete();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (listener != null) {
            listener.onWritabilityChanged(ctx.channel().isWritable());
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            if (listener != null) {
                listener.onUpstreamIdle();
            }
            return;
        }
        ReferenceCountUtil.release(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        UpstreamListener l = listener;
        listener = null;
        if (l != null) {
            l.onUpstreamClosed(failure);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (failure == null) {
            failure = cause;
        }
        ctx.close();
    }
}
