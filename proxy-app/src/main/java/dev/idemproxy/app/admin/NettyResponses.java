package dev.idemproxy.app.admin;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.util.Map;

/** Turns an {@link AdminResponse} into a Netty response and writes it. Stateless. */
final class NettyResponses {
    private NettyResponses() {
    }

    /**
     * Writes {@code response} with its length set; with {@code close} it also announces
     * {@code Connection: close} and closes once written. Ownership of the new buffer passes to the
     * pipeline.
     */
    static void write(ChannelHandlerContext ctx, AdminResponse response, boolean close) {
        FullHttpResponse http = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(response.status()), Unpooled.wrappedBuffer(response.body()));
        http.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, response.contentType())
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
        for (Map.Entry<String, String> h : response.headers().entrySet()) {
            http.headers().set(h.getKey(), h.getValue());
        }
        HttpUtil.setContentLength(http, http.content().readableBytes());
        if (close) {
            HttpUtil.setKeepAlive(http, false);
            ctx.writeAndFlush(http).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.writeAndFlush(http).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        }
    }
}
