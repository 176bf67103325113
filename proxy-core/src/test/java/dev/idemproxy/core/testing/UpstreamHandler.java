package dev.idemproxy.core.testing;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Per-connection handler of {@link TestUpstream}: reads request heads and body chunks (no
 * aggregation), records each complete request (not one whose body failed to decode or was cut
 * short by a close) and runs the chosen {@link UpstreamAction}. Releases every
 * inbound message it reads. One request at a time per connection: pipelined requests are not
 * supported. Not sharable; confined to its event loop.
 */
final class UpstreamHandler extends ChannelInboundHandlerAdapter {

    /** Pipeline name of the HTTP codec; raw writes start just below it. */
    static final String CODEC = "codec";

    private final TestUpstream upstream;
    private final long connectionId;
    private Exchange exchange;
    private UpstreamAction action;

    UpstreamHandler(TestUpstream upstream, long connectionId) {
        this.upstream = upstream;
        this.connectionId = connectionId;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof HttpRequest head) {
                onHead(ctx, head);
            }
            if (msg instanceof HttpContent content && exchange != null) {
                onContent(content);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onHead(ChannelHandlerContext ctx, HttpRequest head) {
        if (head.decoderResult().isFailure()) {
            exchange = null;
            FullHttpResponse bad = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.BAD_REQUEST,
                    Unpooled.EMPTY_BUFFER);
            bad.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
            bad.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(bad).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        exchange = new Exchange(ctx, upstream, head, connectionId);
        action = upstream.nextAction();
        if (action.streamsRequestBody()) {
            action.onRequestHead(exchange);
        }
    }

    private void onContent(HttpContent content) {
        Exchange ex = exchange;
        if (content.decoderResult().isFailure()) {
            // A body cut short (the peer closed mid-body) or malformed: not a request, not recorded.
            exchange = null;
            ex.ctx().close();
            return;
        }
        ex.countBody(content.content().readableBytes());
        if (action.streamsRequestBody()) {
            action.onRequestContent(ex, content.content());
        } else {
            ex.keepBody(content.content());
        }
        if (content instanceof LastHttpContent) {
            exchange = null;
            InetSocketAddress remote = (InetSocketAddress) ex.ctx().channel().remoteAddress();
            upstream.record(ex, remote == null ? -1 : remote.getPort());
            action.respond(ex);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Peers resetting or failing TLS are part of the scenarios; just drop the connection.
        ctx.close();
    }

    static List<Header> headers(HttpHeaders headers) {
        List<Header> list = new ArrayList<>(headers.size());
        for (Iterator<Map.Entry<String, String>> it = headers.iteratorAsString(); it.hasNext(); ) {
            Map.Entry<String, String> e = it.next();
            list.add(new Header(e.getKey(), e.getValue()));
        }
        return list;
    }
}
