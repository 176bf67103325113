package dev.idemproxy.core.mcp;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.idemproxy.core.idempotency.CanonicalJson;
import java.io.IOException;
import java.util.Optional;

/**
 * Reads one POSTed body of MCP's Streamable HTTP transport: a JSON-RPC request, notification,
 * response or (2025-03-26) batch. Only what the dialect needs is taken from it: the method, the
 * id as sent, and for {@code tools/call} the tool's name and canonical arguments
 * ({@code params._meta} is skipped); for {@code notifications/cancelled} the request it names;
 * for {@code tools/list} its cursor. One pass of Jackson's streaming parser, plus the
 * canonicalisation of the arguments.
 *
 * <p>A document with a duplicate member name is {@code INVALID}: the proxy and the upstream could
 * read different tools or arguments from it. This class is stateless and thread-safe.
 */
public final class McpMessageReader {
    public static final int PARSE_ERROR = -32700;
    public static final int INVALID_REQUEST = -32600;
    public static final int INVALID_PARAMS = -32602;

    private McpMessageReader() {}

    /** The message in {@code body}. */
    public static McpMessage read(byte[] body) {
        requireNonNull(body, "body");
        try (JsonParser p = JsonSpans.parser(body)) {
            JsonToken t = p.nextToken();
            if (t == JsonToken.START_ARRAY) {
                p.skipChildren();
                return trailing(p) ? McpMessage.invalid(PARSE_ERROR, null, "the body has content after its JSON value")
                        : McpMessage.of(McpMessage.Kind.BATCH);
            }
            if (t != JsonToken.START_OBJECT) {
                return McpMessage.invalid(PARSE_ERROR, null,
                        t == null ? "the body is empty (expected: a JSON-RPC message)" : "the body is not a JSON object (expected: a JSON-RPC message)");
            }
            Fields f = new Fields();
            readObject(p, body, f);
            if (trailing(p)) {
                return McpMessage.invalid(PARSE_ERROR, null, "the body has content after its JSON value");
            }
            return classify(body, f);
        } catch (IOException | RuntimeException e) {
            return McpMessage.invalid(PARSE_ERROR, null, "the body is not valid JSON: " + firstLine(e.getMessage()));
        }
    }

    /**
     * The id of a {@code tools/call} read from the first bytes of a body too large to read whole:
     * present when its {@code method} and {@code id} both come before the bytes end (as the
     * members are ordered by, e.g., the Python SDK; the TypeScript SDK writes the id last, after
     * the arguments). Best effort: empty for anything else.
     */
    public static Optional<String> toolCallId(byte[] prefix) {
        requireNonNull(prefix, "prefix");
        String method = null;
        String rawId = null;
        boolean numberId = false;
        try (JsonParser p = JsonSpans.parser(prefix)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return Optional.empty();
            }
            while ((method == null || rawId == null) && p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                if (field.equals("method") && v == JsonToken.VALUE_STRING) {
                    method = p.getText();
                } else if (field.equals("id") && validId(v)) {
                    int start = JsonSpans.start(p);
                    rawId = JsonSpans.text(prefix, start, JsonSpans.end(p, v));
                    numberId = v != JsonToken.VALUE_STRING;
                } else {
                    p.skipChildren();
                }
            }
            if (numberId) {
                p.nextToken();  // a number is whole only if something follows it (it may be cut where the bytes end)
            }
        } catch (IOException | RuntimeException e) {
            if (numberId) {
                rawId = null;
            }
            // else the bytes ended (or broke) before both were read
        }
        return McpMessage.TOOLS_CALL.equals(method) && rawId != null ? Optional.of(rawId) : Optional.empty();
    }

    /** What one pass found; offsets are -1 when a member is absent. */
    private static final class Fields {
        String method;
        boolean methodNotString;
        int idStart = -1;
        int idEnd = -1;
        JsonToken idToken;
        boolean hasResult;
        boolean hasError;
        boolean paramsPresent;
        boolean paramsNotObject;
        String name;
        JsonToken nameToken;
        String uri;
        String cursor;
        int argsStart = -1;
        int argsEnd = -1;
        JsonToken argsToken;
        int requestIdStart = -1;
        int requestIdEnd = -1;
    }

    private static void readObject(JsonParser p, byte[] body, Fields f) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            switch (field) {
                case "method":
                    if (v == JsonToken.VALUE_STRING) {
                        f.method = p.getText();
                    } else {
                        f.methodNotString = true;
                        p.skipChildren();
                    }
                    break;
                case "id":
                    f.idToken = v;
                    f.idStart = JsonSpans.start(p);
                    f.idEnd = JsonSpans.end(p, v);
                    break;
                case "result":
                    f.hasResult = true;
                    p.skipChildren();
                    break;
                case "error":
                    f.hasError = true;
                    p.skipChildren();
                    break;
                case "params":
                    f.paramsPresent = v != JsonToken.VALUE_NULL;
                    if (v == JsonToken.START_OBJECT) {
                        readParams(p, f);
                    } else {
                        f.paramsNotObject = f.paramsPresent;
                        p.skipChildren();
                    }
                    break;
                default:
                    p.skipChildren();
            }
        }
    }

    private static void readParams(JsonParser p, Fields f) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            switch (field) {
                case "name":
                    f.nameToken = v;
                    if (v == JsonToken.VALUE_STRING) {
                        f.name = p.getText();
                    } else {
                        p.skipChildren();
                    }
                    break;
                case "uri":
                    if (v == JsonToken.VALUE_STRING) {
                        f.uri = p.getText();
                    } else {
                        p.skipChildren();
                    }
                    break;
                case "cursor":
                    if (v == JsonToken.VALUE_STRING) {
                        f.cursor = p.getText();
                    } else {
                        p.skipChildren();
                    }
                    break;
                case "arguments":
                    f.argsToken = v;
                    f.argsStart = JsonSpans.start(p);
                    f.argsEnd = JsonSpans.end(p, v);
                    break;
                case "requestId":
                    if (v == JsonToken.VALUE_STRING || v == JsonToken.VALUE_NUMBER_INT || v == JsonToken.VALUE_NUMBER_FLOAT) {
                        f.requestIdStart = JsonSpans.start(p);
                        f.requestIdEnd = JsonSpans.end(p, v);
                    } else {
                        p.skipChildren();
                    }
                    break;
                default:
                    p.skipChildren();   // _meta and anything else: never part of a key
            }
        }
    }

    private static McpMessage classify(byte[] body, Fields f) {
        String rawId = validId(f.idToken) ? JsonSpans.text(body, f.idStart, f.idEnd) : null;
        if (f.method == null) {
            if (f.methodNotString) {
                return McpMessage.invalid(INVALID_REQUEST, rawId, "method is not a string (expected: a JSON-RPC method name)");
            }
            McpMessage.Kind kind = (f.hasResult || f.hasError) ? McpMessage.Kind.RESPONSE : McpMessage.Kind.OTHER;
            return new McpMessage(kind, null, rawId, null, null, null, null, null, 0, null);
        }
        boolean hasId = f.idToken != null && f.idToken != JsonToken.VALUE_NULL;
        if (McpMessage.TOOLS_CALL.equals(f.method)) {
            return toolCall(body, f, rawId, hasId);
        }
        if (hasId) {
            String cursor = McpMessage.TOOLS_LIST.equals(f.method) ? f.cursor : null;
            return new McpMessage(McpMessage.Kind.REQUEST, f.method, rawId, null, f.name, f.uri, null, cursor, 0, null);
        }
        String cancelled = McpMessage.CANCELLED.equals(f.method) && f.requestIdStart >= 0
                ? JsonSpans.text(body, f.requestIdStart, f.requestIdEnd) : null;
        return new McpMessage(McpMessage.Kind.NOTIFICATION, f.method, null, null, f.name, f.uri, cancelled, null, 0, null);
    }

    private static McpMessage toolCall(byte[] body, Fields f, String rawId, boolean hasId) {
        if (!hasId) {
            return McpMessage.invalidToolCall(INVALID_REQUEST, null, "tools/call has no id (expected: a request with a string or number id)");
        }
        if (rawId == null) {
            return McpMessage.invalidToolCall(INVALID_REQUEST, null, "tools/call has an id that is not a string or number");
        }
        if (f.paramsNotObject || !f.paramsPresent) {
            return McpMessage.invalidToolCall(INVALID_PARAMS, rawId, "tools/call has no params object (expected: {\"name\": …, \"arguments\": {…}})");
        }
        if (f.name == null || f.name.isEmpty()) {
            return McpMessage.invalidToolCall(INVALID_PARAMS, rawId, "tools/call has no tool name (expected: params.name, a non-empty string)");
        }
        byte[] args;
        if (f.argsToken == null || f.argsToken == JsonToken.VALUE_NULL) {
            args = new byte[] {'{', '}'};
        } else if (f.argsToken != JsonToken.START_OBJECT) {
            return McpMessage.invalidToolCall(INVALID_PARAMS, rawId, "tools/call arguments are not an object (expected: params.arguments, a JSON object)");
        } else {
            Optional<byte[]> canonical = CanonicalJson.canonicalize(JsonSpans.slice(body, f.argsStart, f.argsEnd));
            if (canonical.isEmpty()) {
                return McpMessage.invalidToolCall(INVALID_PARAMS, rawId, "tools/call arguments cannot be read (a duplicate member name?)");
            }
            args = canonical.get();
        }
        McpToolCall call = new McpToolCall(rawId, f.name, args);
        return new McpMessage(McpMessage.Kind.REQUEST, f.method, rawId, call, f.name, f.uri, null, null, 0, null);
    }

    private static boolean validId(JsonToken t) {
        return t == JsonToken.VALUE_STRING || t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT;
    }

    private static boolean trailing(JsonParser p) throws IOException {
        return p.nextToken() != null;
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
