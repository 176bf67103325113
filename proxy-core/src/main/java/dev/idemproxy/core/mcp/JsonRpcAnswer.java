package dev.idemproxy.core.mcp;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;

/**
 * An answer the proxy writes itself on an MCP route: an HTTP status and an
 * {@code application/json} body holding one JSON-RPC response. This class is immutable; the
 * array is never modified.
 */
public record JsonRpcAnswer(int status, byte[] body) {
    public static final String CONTENT_TYPE = "application/json";

    public JsonRpcAnswer {
        requireNonNull(body, "body");
    }

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JsonRpcAnswer a && a.status == status && java.util.Arrays.equals(a.body, body);
    }

    @Override
    public int hashCode() {
        return status * 31 + java.util.Arrays.hashCode(body);
    }

    @Override
    public String toString() {
        return "JsonRpcAnswer[" + status + " " + bodyText() + "]";
    }
}
