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
 * connection) is unexpected: released and the connection closed. A response head is held until
 * the next message of the same read: when that is the last content, head and content go to the
 * listener together ({@link UpstreamListener#onFullResponse}), so a small response is written
 * to the client as one message; otherwise, or at the end of the read, the head goes alone (a
 * stream's head is never kept waiting for its first event). Ownership: contents are passed
 * to the listener, which releases them. Not thread-safe: used only on the channel's event loop.
 */
final class UpstreamHandler extends ChannelInboundHandlerAdapter {
    private UpstreamListener listener;
    private boolean inInterim;
    private Throwable failure;
    /** A final response head read in this read and not yet handed on; null otherwise. */
    private HttpResponse heldHead;

    void attach(UpstreamListener l) {
        this.listener = l;
        this.inInterim = false;
        this.heldHead = null;
    }

    void detach() {
        this.listener = null;
        this.heldHead = null;
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
                failure = new MalformedResponseException(r.decoderResult().cause());
                ctx.close();
                return;
            }
            if (r.status().codeClass() == HttpStatusClass.INFORMATIONAL && r.status().code() != 101) {
                inInterim = true;
                ReferenceCountUtil.release(msg);
                return;
            }
            if (!(msg instanceof HttpContent)) {
                heldHead = r;
                return;
            }
            l.onResponseHead(r);
        }
        if (msg instanceof HttpContent) {
            HttpResponse head = heldHead;
            if (head != null) {
                heldHead = null;
                if (msg instanceof LastHttpContent) {
                    l.onFullResponse(head, (LastHttpContent) msg);
                    return;
                }
                l.onResponseHead(head);
                l = listener;
                if (l == null) {
                    // the head let the connection go: what follows is unexpected, as above
                    ReferenceCountUtil.release(msg);
                    ctx.close();
                    return;
                }
            }
            if (inInterim) {
                inInterim = !(msg instanceof LastHttpContent);
                ReferenceCountUtil.release(msg);
                return;
            }
            l.onResponseContent((HttpContent) msg);  // a FullHttpResponse's too, after its head above
            return;
        }
        ReferenceCountUtil.release(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        handOnHeldHead();
        if (listener != null) {
            listener.onReadComplete();
        }
    }

    /** A head whose body did not come in the same read goes on alone. */
    private void handOnHeldHead() {
        HttpResponse head = heldHead;
        if (head != null) {
            heldHead = null;
            if (listener != null) {
                listener.onResponseHead(head);
            }
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
        handOnHeldHead();
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
