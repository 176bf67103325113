package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.call.CallIdentity;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

/** Builds the replay of a stored response: same status, headers and bytes, marked replayed. Stateless. */
final class Replays {
    private Replays() {}

    static FullHttpResponse response(ByteBufAllocator alloc, StoredResponse stored, String callId, int attempts) {
        ByteBuf body = alloc.buffer(stored.bodyLength());
        body.writeBytes(stored.bodyBuffer());
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(stored.status()), body);
        for (StoredHeader h : stored.headers()) {
            r.headers().add(h.name(), h.value());
        }
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, stored.bodyLength());
        r.headers().set(CallIdentity.IDEMPOTENT_REPLAYED, "true");
        r.headers().set(CallIdentity.X_CALL_ID, callId);
        r.headers().setInt(CallIdentity.X_ATTEMPTS, attempts);
        return r;
    }
}
