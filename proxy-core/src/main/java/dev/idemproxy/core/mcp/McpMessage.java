package dev.idemproxy.core.mcp;

import static java.util.Objects.requireNonNull;

/**
 * One POSTed JSON-RPC message on an MCP route, as {@link McpMessageReader} read it. This class is
 * immutable.
 *
 * @param kind              what the body is
 * @param method            the request's or notification's {@code method} ({@code tools/call} for an
 *                          {@code INVALID} tools/call); null otherwise
 * @param rawId             a request's or response's {@code id} exactly as sent (raw JSON); null when absent or null
 * @param toolCall          for a valid {@code tools/call} request; else null
 * @param paramsName        {@code params.name} when it is a string (what {@code Mcp-Name} mirrors for tools and prompts); else null
 * @param paramsUri         {@code params.uri} when it is a string (what {@code Mcp-Name} mirrors for resources); else null
 * @param cancelledRequest  for {@code notifications/cancelled}: {@code params.requestId} as sent (raw JSON); else null
 * @param listCursor        for {@code tools/list}: {@code params.cursor}; null for a first page
 * @param errorCode         for {@code INVALID}: the JSON-RPC error code to answer ({@code -32700}, {@code -32600}, {@code -32602}); else 0
 * @param detail            for {@code INVALID}: why, as a sentence; else null
 */
public record McpMessage(Kind kind, String method, String rawId, McpToolCall toolCall, String paramsName,
        String paramsUri, String cancelledRequest, String listCursor, int errorCode, String detail) {

    public static final String TOOLS_CALL = "tools/call";
    public static final String TOOLS_LIST = "tools/list";
    public static final String CANCELLED = "notifications/cancelled";

    /** What a POST body holds. */
    public enum Kind {
        /** A request (a {@code method} and an {@code id}). */
        REQUEST,
        /** A notification (a {@code method}, no {@code id}). */
        NOTIFICATION,
        /** A client's response to a server request ({@code result} or {@code error}, no {@code method}). */
        RESPONSE,
        /** A JSON array: a JSON-RPC batch (2025-03-26); passes through unprotected. */
        BATCH,
        /** A JSON object that is none of the above; passed through for the upstream to answer. */
        OTHER,
        /**
         * Not JSON (or with a duplicate member name), or a {@code tools/call} without an id, a tool
         * name or object arguments: answered 400 by the proxy, never forwarded, since the proxy
         * cannot know what the upstream would execute.
         */
        INVALID
    }

    public McpMessage {
        requireNonNull(kind, "kind");
        if (kind == Kind.INVALID) {
            requireNonNull(detail, "detail");
        }
    }

    static McpMessage invalid(int code, String rawId, String detail) {
        return new McpMessage(Kind.INVALID, null, rawId, null, null, null, null, null, code, detail);
    }

    /** A {@code tools/call} the proxy cannot act on (no id, no tool name, arguments that are no object): {@link #method} says so. */
    static McpMessage invalidToolCall(int code, String rawId, String detail) {
        return new McpMessage(Kind.INVALID, TOOLS_CALL, rawId, null, null, null, null, null, code, detail);
    }

    static McpMessage of(Kind kind) {
        return new McpMessage(kind, null, null, null, null, null, null, null, 0, null);
    }

    public boolean isToolCall() {
        return toolCall != null;
    }

    public boolean isToolsList() {
        return kind == Kind.REQUEST && TOOLS_LIST.equals(method);
    }

    public boolean isCancellation() {
        return kind == Kind.NOTIFICATION && CANCELLED.equals(method) && cancelledRequest != null;
    }
}
