package dev.idemproxy.core.mcp;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Optional;

/**
 * The shape of one JSON-RPC response: whether it carries a {@code result} (and the tool's
 * {@code isError}) or an {@code error} (and its code), and its {@code id} as sent with the byte
 * span of the id's value, so a replay can put another id in its place. This class is immutable.
 *
 * @param rawId     the id exactly as sent (raw JSON), or null when absent
 * @param idStart   where the id's value starts in the response; -1 when there is no id
 * @param idEnd     where it ends (exclusive); -1 when there is no id
 * @param hasResult a {@code result} member is present
 * @param isError   {@code result.isError} is JSON {@code true} (a tool error the tool reported)
 * @param errorCode {@code error.code} when an integer {@code error} is present; else 0
 */
public record JsonRpcResponse(String rawId, int idStart, int idEnd, boolean hasResult, boolean isError, int errorCode) {
    /** JSON-RPC's internal error: the server failed while handling the request. */
    public static final int INTERNAL_ERROR = -32603;

    /**
     * The response in {@code json}, or empty when it is not one JSON object with either a
     * {@code result} or an {@code error} (and no {@code method}): a request or notification
     * (such as progress on an SSE stream) is not a response.
     */
    public static Optional<JsonRpcResponse> read(byte[] json) {
        requireNonNull(json, "json");
        try (JsonParser p = JsonSpans.parser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return Optional.empty();
            }
            String rawId = null;
            int idStart = -1;
            int idEnd = -1;
            boolean hasResult = false;
            boolean hasError = false;
            boolean hasMethod = false;
            boolean isError = false;
            int code = 0;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                switch (field) {
                    case "id":
                        idStart = JsonSpans.start(p);
                        idEnd = JsonSpans.end(p, v);
                        rawId = v == JsonToken.VALUE_NULL ? null : JsonSpans.text(json, idStart, idEnd);
                        break;
                    case "result":
                        hasResult = true;
                        isError = v == JsonToken.START_OBJECT && resultIsError(p);
                        if (v != JsonToken.START_OBJECT) {
                            p.skipChildren();
                        }
                        break;
                    case "error":
                        hasError = true;
                        code = v == JsonToken.START_OBJECT ? errorCode(p) : 0;
                        if (v != JsonToken.START_OBJECT) {
                            p.skipChildren();
                        }
                        break;
                    case "method":
                        hasMethod = true;
                        p.skipChildren();
                        break;
                    default:
                        p.skipChildren();
                }
            }
            if (p.nextToken() != null || hasMethod || hasResult == hasError) {
                return Optional.empty();
            }
            return Optional.of(new JsonRpcResponse(rawId, idStart, idEnd, hasResult, isError, code));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    public boolean hasError() {
        return !hasResult;
    }

    /** Reads a result object to its end; true when its {@code isError} is {@code true}. */
    private static boolean resultIsError(JsonParser p) throws IOException {
        boolean isError = false;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            if (field.equals("isError")) {
                isError = v == JsonToken.VALUE_TRUE;
            }
            p.skipChildren();
        }
        return isError;
    }

    /** Reads an error object to its end; its integer code, or 0. */
    private static int errorCode(JsonParser p) throws IOException {
        int code = 0;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            if (field.equals("code") && v == JsonToken.VALUE_NUMBER_INT && p.getNumberType() == JsonParser.NumberType.INT) {
                code = p.getIntValue();
            }
            p.skipChildren();
        }
        return code;
    }
}
