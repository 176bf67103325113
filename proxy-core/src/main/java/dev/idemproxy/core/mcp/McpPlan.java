package dev.idemproxy.core.mcp;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.idempotency.Fingerprint;
import dev.idemproxy.core.idempotency.KeyResolution;

/**
 * What the engine does with one request on an MCP route, as {@link McpPlanner} decided it.
 * Every variant is immutable.
 */
public sealed interface McpPlan permits McpPlan.PassThrough, McpPlan.Reject, McpPlan.Protect {

    /**
     * Forward untouched and store nothing: every message but a protected {@code tools/call},
     * and every request that is not a POST (the 2025-era GET stream, DELETE of a session).
     *
     * @param message  the message read, or null for a request that is not a POST
     * @param toolLabel for an unprotected {@code tools/call}: its metrics label; else null
     */
    record PassThrough(McpMessage message, String toolLabel) implements McpPlan {
        /** A JSON-RPC batch: forwarded unprotected and counted ({@code unprotected_batch}). */
        public boolean isBatch() {
            return message != null && message.kind() == McpMessage.Kind.BATCH;
        }

        /**
         * True for a {@code tools/list} request: its answer (JSON, or the final response of an
         * SSE stream) goes to {@link ToolCatalogue#observe} with {@link #toolsListCursor()}.
         */
        public boolean observesToolsList() {
            return message != null && message.isToolsList();
        }

        /** The cursor the tools/list page was asked with; null for a first page or another message. */
        public String toolsListCursor() {
            return observesToolsList() ? message.listCursor() : null;
        }

        /**
         * For {@code notifications/cancelled}: the request it names (raw JSON). When that is a
         * protected call in flight, the engine answers 202 itself and does not forward it.
         */
        public String cancelledRequest() {
            return message != null && message.isCancellation() ? message.cancelledRequest() : null;
        }
    }

    /**
     * Answer with {@code answer} and forward nothing.
     *
     * @param toolLabel for a {@code tools/call} (as far as it was read): its metrics label, {@code other}
     *                  when its tool could not be read; null for any other message
     * @param reason    why, for the call's log line: {@code invalid_message}, {@code header_mismatch}, {@code bad_key}
     */
    record Reject(JsonRpcAnswer answer, String toolLabel, String reason) implements McpPlan {
        public static final String INVALID_MESSAGE = "invalid_message";
        public static final String HEADER_MISMATCH = "header_mismatch";
        public static final String BAD_KEY = "bad_key";

        public Reject {
            requireNonNull(answer, "answer");
            requireNonNull(reason, "reason");
        }
    }

    /**
     * A protected {@code tools/call}: claim {@code key} (a derived key within {@code mcp.window}),
     * with {@code fingerprint}, in the route's scope; forward once; store its final response.
     *
     * @param repeatHarmless true when an unknown outcome may be retried (idempotentHint, or a route tagged idempotent)
     */
    record Protect(McpToolCall call, KeyResolution key, Fingerprint fingerprint, String toolLabel, boolean repeatHarmless)
            implements McpPlan {
        public Protect {
            requireNonNull(call, "call");
            requireNonNull(key, "key");
            requireNonNull(fingerprint, "fingerprint");
            requireNonNull(toolLabel, "toolLabel");
        }
    }
}
