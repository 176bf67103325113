package dev.idemproxy.core.mcp;

import dev.idemproxy.core.call.CallDialect;
import dev.idemproxy.core.call.CallPlan;
/**
 * What the MCP dialect keeps about one planned message ({@link CallPlan#facts()}), for its own
 * later questions about the call. This class is immutable.
 *
 * @param requestId      the JSON-RPC id as sent (raw JSON), echoed in replays and proxy errors; null for a notification or batch
 * @param toolLabel      the {@code tool} label of {@code idemproxy_mcp_calls_total}; null when the message is not counted there
 * @param repeatHarmless an unknown outcome of the tool may be retried ({@code idempotentHint}, or a route tagged idempotent)
 * @param cancelKey      for a protected {@code tools/call}: the name a {@code notifications/cancelled} finds it under; else null
 * @param sessionKey     for a protected {@code tools/call} in a session: the session's name in its scope; else null
 * @param batch          a JSON-RPC batch, counted as {@code unprotected_batch}
 */
record McpFacts(String requestId, String toolLabel, boolean repeatHarmless, String cancelKey, String sessionKey, boolean batch)
        implements CallDialect.Facts {

    static final McpFacts NONE = new McpFacts(null, null, false, null, null, false);
}
