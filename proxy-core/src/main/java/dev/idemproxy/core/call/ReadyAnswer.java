package dev.idemproxy.core.call;

import static java.util.Objects.requireNonNull;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

/**
 * An answer a dialect's planner made for a call that is not forwarded: an MCP message the proxy
 * cannot read (a JSON-RPC error), or a {@code notifications/cancelled} it holds back (202). This
 * class is immutable; the array is never modified.
 *
 * @param status      the HTTP status
 * @param contentType the body's media type; null for an empty body
 * @param body        the body, maybe empty
 * @param reason      why, for the call's log line ({@code invalid_message}, {@code cancel_held}, …)
 */
public record ReadyAnswer(int status, String contentType, byte[] body, String reason) {
    public ReadyAnswer {
        requireNonNull(body, "body");
        requireNonNull(reason, "reason");
    }

    /** The answer as a response in a buffer of {@code alloc}; the caller owns it. */
    public FullHttpResponse response(ByteBufAllocator alloc) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status),
                alloc.buffer(body.length).writeBytes(body));
        if (contentType != null) {
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        }
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        return r;
    }
}
