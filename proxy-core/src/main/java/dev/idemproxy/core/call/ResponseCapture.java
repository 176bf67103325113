package dev.idemproxy.core.call;

import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
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
    /** Names most responses carry, as upstreams commonly spell them: one String each for every call. */
    private static final String[] COMMON_NAMES = {
        "Server", "Date", "Content-Type", "Content-Length", "Connection", "Cache-Control", "Vary", "ETag",
        "Last-Modified", "Location", "Set-Cookie", "Content-Encoding", "Keep-Alive",
        "server", "date", "content-type", "content-length", "connection", "cache-control", "vary", "etag",
        "last-modified", "location", "set-cookie", "content-encoding", "keep-alive",
    };
    /** The most a declared Content-Length makes the capture take at once. */
    private static final int PRESIZE_MAX = 64 * 1024;
    private final long limit;
    private int status;
    private List<StoredHeader> headers;
    private byte[] body;
    private int size;
    private boolean overflow;

    ResponseCapture(long limit) {
        this.limit = limit;
    }

    void head(HttpResponse resp) {
        status = resp.status().code();
        HttpHeaders h = resp.headers();
        List<StoredHeader> kept = new ArrayList<>(h.size());
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> e = it.next();
            CharSequence name = e.getKey();
            if (!HttpHeaderNames.TRANSFER_ENCODING.contentEqualsIgnoreCase(name)
                    && !HttpHeaderNames.CONNECTION.contentEqualsIgnoreCase(name)
                    && !CallIdentity.X_RETRY_BUDGET_REMAINING.contentEqualsIgnoreCase(name)) {
                kept.add(new StoredHeader(nameOf(name), e.getValue().toString()));
            }
        }
        headers = Collections.unmodifiableList(kept);
        // As long as the response says, when that fits (and is small); grown as it comes otherwise.
        int declared = h.getInt(HttpHeaderNames.CONTENT_LENGTH, -1);
        body = new byte[declared >= 0 && declared <= Math.min(limit, PRESIZE_MAX) ? declared : 256];
        size = 0;
    }

    /** Copies the readable bytes of {@code content} without changing its indices. */
    void content(ByteBuf content) {
        if (overflow || body == null) {
            return;
        }
        int n = content.readableBytes();
        if (size + (long) n > limit) {
            overflow = true;
            body = null;
            return;
        }
        if (size + n > body.length) {
            long grown = Math.min(Math.min(limit, Integer.MAX_VALUE - 8), Math.max(body.length * 2L, (long) size + n));
            body = Arrays.copyOf(body, (int) grown);
        }
        content.getBytes(content.readerIndex(), body, size, n);
        size += n;
    }

    boolean retained() {
        return !overflow && body != null;
    }

    StoredResponse result() {
        if (!retained()) {
            return null;
        }
        return StoredResponse.owning(status, headers, size == body.length ? body : Arrays.copyOf(body, size));
    }

    /** {@code name} as a String: a shared one when the upstream spelt it as a common name is spelt. */
    private static String nameOf(CharSequence name) {
        int len = name.length();
        for (String common : COMMON_NAMES) {
            if (common.length() == len && common.contentEquals(name)) {
                return common;
            }
        }
        return name.toString();
    }
}
