package dev.idemproxy.core.pipeline;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;

/**
 * Writes a whole response the proxy made itself; with {@code close}, marks it
 * {@code Connection: close} and closes the connection once it is written. Stateless.
 */
final class Answers {
    private Answers() {}

    static ChannelFuture write(ChannelHandlerContext ctx, FullHttpResponse response, boolean close) {
        if (close) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            return ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
        return ctx.writeAndFlush(response);
    }
}
