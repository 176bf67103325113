package dev.idemproxy.core.call;

import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Copies a response as it streams to the client, up to a byte limit, so it can be stored and
 * replayed byte for byte. Headers are kept in order minus Transfer-Encoding and Connection
 * (Content-Length is kept, with its name as the upstream spelt it, so a replay writes it in the same
 * place; its value is recomputed from the stored body) and {@code X-Retry-Budget-Remaining}, which
 * describes the task when the call ran, not when a duplicate comes. Past the limit the capture stops and
 * the response counts as not retained. Not thread-safe: used on one event loop.
 */
final class ResponseCapture {
    private final long limit;
    private int status;
    private List<StoredHeader> headers;
    private ByteArrayOutputStream body;
    private boolean overflow;

    ResponseCapture(long limit) {
        this.limit = limit;
    }

    void head(HttpResponse resp) {
        status = resp.status().code();
        headers = new ArrayList<>(resp.headers().size());
        for (Map.Entry<String, String> h : resp.headers()) {
            if (!HttpHeaderNames.TRANSFER_ENCODING.contentEqualsIgnoreCase(h.getKey())
                    && !HttpHeaderNames.CONNECTION.contentEqualsIgnoreCase(h.getKey())
                    && !CallIdentity.X_RETRY_BUDGET_REMAINING.contentEqualsIgnoreCase(h.getKey())) {
                headers.add(new StoredHeader(h.getKey(), h.getValue()));
            }
        }
        body = new ByteArrayOutputStream();
    }

    /** Copies the readable bytes of {@code content} without changing its indices. */
    void content(ByteBuf content) {
        if (overflow || body == null) {
            return;
        }
        int n = content.readableBytes();
        if (body.size() + (long) n > limit) {
            overflow = true;
            body = null;
            return;
        }
        try {
            content.getBytes(content.readerIndex(), body, n);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    boolean retained() {
        return !overflow && body != null;
    }

    StoredResponse result() {
        return retained() ? new StoredResponse(status, headers, body.toByteArray()) : null;
    }
}
