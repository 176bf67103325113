package dev.idemproxy.core.pipeline;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/**
 * {@code Expect: 100-continue}, answered once the proxy has decided to read the request's body
 * and never before (RFC 9110 §10.1.1): a request refused at its head (no route, a body declared
 * over {@code maxRequestBody}) gets its final answer instead, so a client that waits for the
 * 100 does not upload a body bound to be thrown away. The body handler sends it, for a protected
 * call before it buffers the body and for any other call as it passes it on. Stateless.
 */
final class ExpectContinue {
    private ExpectContinue() {}

    /**
     * Sends {@code 100 Continue} when {@code request} waits for it, and drops its {@code Expect}
     * header (the upstream is not asked again).
     */
    static void accept(ChannelHandlerContext ctx, HttpRequest request) {
        if (HttpUtil.is100ContinueExpected(request)) {
            request.headers().remove(HttpHeaderNames.EXPECT);
            ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE, Unpooled.EMPTY_BUFFER))
                    .addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        }
    }

    /**
     * Whether a final answer to {@code request} given now, before its body, must close the
     * connection: its client waits for a 100 before sending a body the codec still expects, so
     * whatever it sends next could not be told from that body.
     */
    static boolean bodyStillAwaited(HttpRequest request) {
        return HttpUtil.is100ContinueExpected(request) && !(request instanceof FullHttpRequest);
    }
}
