package dev.idemproxy.core.mcp;

import dev.idemproxy.core.call.ResponseObserver;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import java.io.ByteArrayOutputStream;
import java.util.Locale;

/**
 * Reads a {@code tools/list} answer as it passes to the client and hands its final JSON-RPC
 * response to the route's {@link ToolCatalogue} (docs/mcp.md): a JSON body once it is whole, or
 * the response an SSE stream carries for the request, as soon as it has come. Nothing is held
 * back or delayed: bytes are copied as they pass, at most {@code limit} of a JSON body (a
 * larger one is not read) and at most one event of that size of a stream. Answers other than a
 * 2xx are not read. Not thread-safe: one per call, on its event loop.
 */
final class ToolsListObserver implements ResponseObserver {
    private final ToolCatalogue catalogue;
    private final String cursor;
    private final String requestId;
    private final int limit;
    private ByteArrayOutputStream json;
    private SseResponseCapture sse;
    private boolean done;

    /**
     * @param cursor    the {@code params.cursor} the page was asked with; null for a first page
     * @param requestId the request's id as sent (raw JSON): the response on a stream that answers it
     * @param limit     the most bytes kept (the route's {@code maxResponseBody})
     */
    ToolsListObserver(ToolCatalogue catalogue, String cursor, String requestId, long limit) {
        this.catalogue = catalogue;
        this.cursor = cursor;
        this.requestId = requestId;
        this.limit = (int) Math.min(Integer.MAX_VALUE - 8, limit);
    }

    @Override
    public void head(HttpResponse head) {
        int status = head.status().code();
        String type = head.headers().get(HttpHeaderNames.CONTENT_TYPE);
        if (status < 200 || status >= 300 || type == null) {
            done = true;
        } else if (type.toLowerCase(Locale.ROOT).startsWith("text/event-stream")) {
            sse = requestId == null ? null : new SseResponseCapture(requestId, limit);
            done = sse == null;
        } else {
            json = new ByteArrayOutputStream();
        }
    }

    @Override
    public void content(ByteBuf content, boolean last) {
        if (done) {
            return;
        }
        int n = content.readableBytes();
        byte[] bytes = new byte[n];
        content.getBytes(content.readerIndex(), bytes);
        if (sse != null) {
            sse.feed(bytes);
            if (sse.done()) {
                done = true;
                catalogue.observe(cursor, sse.finalResponse().get());
            } else if (last) {
                done = true;
            }
            return;
        }
        if (json.size() + (long) n > limit) {
            done = true;  // too large to read: the catalogue stays as it was (unknown tools are protected)
            json = null;
            return;
        }
        json.write(bytes, 0, n);
        if (last) {
            done = true;
            catalogue.observe(cursor, json.toByteArray());
            json = null;
        }
    }
}
