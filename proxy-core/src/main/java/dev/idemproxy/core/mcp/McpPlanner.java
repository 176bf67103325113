package dev.idemproxy.core.mcp;

import dev.idemproxy.core.route.McpPolicy;
import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.idempotency.KeyResolution;
import dev.idemproxy.core.idempotency.RequestView;
import dev.idemproxy.core.problem.Problem;
import java.util.Optional;

/**
 * The first question the engine asks the MCP dialect about a request whose head and body it has
 * (docs/mcp.md): pass it through, reject it, or protect it, and with which key and fingerprint.
 * <ol>
 *   <li>Not a POST (a 2025-era GET stream, a DELETE of a session): pass through, unread.</li>
 *   <li>A body the proxy cannot read, or a {@code tools/call} without an id, a tool name or
 *       object arguments: 400 with a JSON-RPC error ({@link McpErrors#invalid}).</li>
 *   <li>A {@code tools/call} whose mirrored headers disagree with its body, or lack them on the
 *       sessionless generation: 400, {@code -32020} ({@link McpHeaderCheck}).</li>
 *   <li>A {@code tools/call} of a tool the policy protects ({@link McpPolicy#protects}): its
 *       key ({@link McpKeys#resolve}; a malformed client key is a JSON-RPC
 *       {@code bad-request} error) and fingerprint.</li>
 *   <li>Anything else passes through: a batch, other requests (a {@code tools/list}'s answer to be
 *       observed), notifications, the client's responses, unprotected tool calls.</li>
 * </ol>
 * This class is stateless and thread-safe (a {@link McpKeys.Memo} is not: one per connection).
 */
public final class McpPlanner {
    private McpPlanner() {}

    /**
     * @param request               the request, its body buffered
     * @param policy                the route's {@code mcp}
     * @param catalogue             the route's tool catalogue
     * @param keyHeader             the route's {@code idempotency.key.header}
     * @param routeTaggedIdempotent the route is tagged {@code idempotent}
     */
    public static McpPlan plan(RequestView request, McpPolicy policy, ToolCatalogue catalogue, String keyHeader,
            boolean routeTaggedIdempotent) {
        return plan(request, policy, catalogue, keyHeader, routeTaggedIdempotent, new McpKeys.Memo());
    }

    /**
     * As {@link #plan(RequestView, McpPolicy, ToolCatalogue, String, boolean)}, with the
     * connection's remembered keys ({@link McpKeys.Memo}).
     */
    public static McpPlan plan(RequestView request, McpPolicy policy, ToolCatalogue catalogue, String keyHeader,
            boolean routeTaggedIdempotent, McpKeys.Memo keys) {
        requireNonNull(request, "request");
        requireNonNull(policy, "policy");
        requireNonNull(catalogue, "catalogue");
        requireNonNull(keyHeader, "keyHeader");
        if (!"POST".equals(request.method())) {
            return new McpPlan.PassThrough(null, null);
        }
        McpMessage m = McpMessageReader.read(request.body());
        if (m.kind() == McpMessage.Kind.INVALID) {
            return new McpPlan.Reject(McpErrors.invalid(m), McpMessage.TOOLS_CALL.equals(m.method()) ? ToolCatalogue.OTHER : null,
                    McpPlan.Reject.INVALID_MESSAGE);
        }
        if (!m.isToolCall()) {
            return new McpPlan.PassThrough(m, null);
        }
        McpToolCall call = m.toolCall();
        String label = catalogue.label(call.tool());
        Optional<String> mismatch = McpHeaderCheck.mismatch(request, m);
        if (mismatch.isPresent()) {
            return new McpPlan.Reject(McpErrors.headerMismatch(m.rawId(), mismatch.get()), label, McpPlan.Reject.HEADER_MISMATCH);
        }
        if (!policy.protects(call.tool(), catalogue::isReadOnly)) {
            return new McpPlan.PassThrough(m, label);
        }
        KeyResolution key = keys.resolve(keyHeader, request, call);
        if (key.kind() == KeyResolution.Kind.BAD) {
            return new McpPlan.Reject(McpErrors.error(Problem.BAD_REQUEST, call.rawId(), key.detail(), null), label,
                    McpPlan.Reject.BAD_KEY);
        }
        return new McpPlan.Protect(call, key, keys.fingerprint(request, call), label,
                McpOutcomes.repeatHarmless(routeTaggedIdempotent, catalogue, call.tool()));
    }
}
