package dev.idemproxy.core.pipeline;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;

/**
 * The client connection's persistence: it stays open after a response when the request and the
 * response both allow it and the response's end is known without closing the connection; else
 * the response says {@code Connection: close} and the connection closes once it is written.
 *
 * <p>A response's end is known from its {@code Content-Length} or chunked coding, and without
 * either when it has no body by definition: a 1xx, 204 or 304 response, or any answer to a HEAD
 * request (RFC 9112 §6.3). Netty's {@code HttpServerKeepAliveHandler}, used here before, knows
 * only 1xx and 204, so it closed the connection after every 304 that came without a
 * {@code Content-Length}, which is every ordinary one: a client revalidating with ETags paid a
 * new connection per request.
 *
 * <p>With {@link RequestSequencer} before it, one request at a time passes, so the request being
 * answered is the last one seen. Not thread-safe: one instance per channel.
 */
final class KeepAliveHandler extends ChannelDuplexHandler {
    /** The request being answered allows the connection to stay open. */
    private boolean requestKeepAlive = true;
    private boolean headRequest;
    /** The final response being written closes the connection once its last part is written. */
    private boolean closeAfterResponse;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            requestKeepAlive = HttpUtil.isKeepAlive(request);
            headRequest = HttpMethod.HEAD.equals(request.method());
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse response && response.status().codeClass() != HttpStatusClass.INFORMATIONAL) {
            closeAfterResponse = !requestKeepAlive || !HttpUtil.isKeepAlive(response) || !endKnown(response, headRequest);
            if (closeAfterResponse) {
                HttpUtil.setKeepAlive(response, false);
            }
        }
        if (closeAfterResponse && ExchangeTracker.endsResponse(msg)) {
            closeAfterResponse = false;
            ctx.write(msg, promise.unvoid().addListener(ChannelFutureListener.CLOSE));
            return;
        }
        ctx.write(msg, promise);
    }

    /** Whether the end of {@code response} (a final one) is known without closing the connection. */
    static boolean endKnown(HttpResponse response, boolean toHead) {
        int code = response.status().code();
        return toHead || code == 204 || code == 304
                || HttpUtil.isContentLengthSet(response) || HttpUtil.isTransferEncodingChunked(response);
    }
}
