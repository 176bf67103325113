package dev.idemproxy.app.telemetry;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.io.IOException;

/**
 * What an MCP {@code tools/call} span needs from the request body that the proxy's own reading
 * keeps to itself: the JSON-RPC id as text (a string id without its quotes) and the trace context
 * the client put in {@code params._meta} ({@code traceparent}, {@code tracestate}), read in one
 * pass of Jackson's streaming parser that skips everything else. Any field that cannot be read is
 * null. This class is immutable.
 */
record McpRequest(String requestId, String traceparent, String tracestate) {
    static final McpRequest NONE = new McpRequest(null, null, null);
    private static final JsonFactory JSON = new JsonFactory();

    /** The fields of {@code body} (its readable bytes, left as they are). */
    static McpRequest read(ByteBuf body) {
        if (body == null || !body.isReadable()) {
            return NONE;
        }
        byte[] bytes;
        int offset;
        if (body.hasArray()) {
            bytes = body.array();
            offset = body.arrayOffset() + body.readerIndex();
        } else {
            bytes = ByteBufUtil.getBytes(body);
            offset = 0;
        }
        try (JsonParser p = JSON.createParser(bytes, offset, body.readableBytes())) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return NONE;
            }
            String id = null;
            String[] meta = {null, null};
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                if (field.equals("id") && (v == JsonToken.VALUE_STRING || v == JsonToken.VALUE_NUMBER_INT
                        || v == JsonToken.VALUE_NUMBER_FLOAT)) {
                    id = p.getText();
                } else if (field.equals("params") && v == JsonToken.START_OBJECT) {
                    params(p, meta);
                } else {
                    p.skipChildren();
                }
            }
            return new McpRequest(id, meta[0], meta[1]);
        } catch (IOException | RuntimeException e) {
            return NONE;  // the proxy's own reading answered it already; the span goes without
        }
    }

    private static void params(JsonParser p, String[] meta) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            if (field.equals("_meta") && v == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String key = p.currentName();
                    JsonToken mv = p.nextToken();
                    if (mv == JsonToken.VALUE_STRING && key.equals("traceparent")) {
                        meta[0] = p.getText();
                    } else if (mv == JsonToken.VALUE_STRING && key.equals("tracestate")) {
                        meta[1] = p.getText();
                    } else {
                        p.skipChildren();
                    }
                }
            } else {
                p.skipChildren();
            }
        }
    }
}
