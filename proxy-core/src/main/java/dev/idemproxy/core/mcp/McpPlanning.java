package dev.idemproxy.core.mcp;

import dev.idemproxy.core.call.CallDialect;
import dev.idemproxy.core.call.CallPlan;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.call.ReadyAnswer;
import dev.idemproxy.core.call.ResponseObserver;
import dev.idemproxy.core.idempotency.CanonicalJson;
import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.idempotency.RequestView;
import dev.idemproxy.core.idempotency.Scope;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.store.RecordKey;
import java.nio.charset.StandardCharsets;

/**
 * A connection's planner on an MCP route: turns the dialect's pure decision
 * ({@link McpPlanner#plan}) into the engine's {@link CallPlan}. A protected {@code tools/call}
 * gets its record in the route's scope ({@code idempotency.scope}), its key's window
 * ({@code mcp.window}) and the name a cancellation finds it under; an unreadable message or a
 * bad key is answered at once with its JSON-RPC error; a {@code notifications/cancelled} naming
 * a protected call in flight is answered 202 and not forwarded; a session's DELETE passes through
 * once the session's protected calls have settled; everything else passes through, a
 * {@code tools/list} with an observer that feeds the route's tool catalogue. It remembers the
 * connection's last scope, as a client on a keep-alive connection sends the same credentials
 * each time, and its last tool call's key and fingerprint, as a retry sends the same tool and arguments. Not thread-safe: one per connection.
 */
final class McpPlanning implements CallDialect.Planner {
    static final String SESSION_HEADER = "Mcp-Session-Id";
    /** The log reason of a cancellation held back. */
    static final String CANCEL_HELD = "cancel_held";
    /** How long past {@code timeouts.total} a session's DELETE waits at most for its protected calls. */
    static final java.time.Duration DELETE_MARGIN = java.time.Duration.ofSeconds(10);
    private static final ReadyAnswer ACCEPTED = new ReadyAnswer(202, null, new byte[0], CANCEL_HELD);

    private final McpDialect dialect;
    private final Scope.Memo scopes = new Scope.Memo();
    private final dev.idemproxy.core.mcp.McpKeys.Memo keys = new dev.idemproxy.core.mcp.McpKeys.Memo();

    McpPlanning(McpDialect dialect) {
        this.dialect = dialect;
    }

    @Override
    public CallPlan plan(ProxyCall call, RequestView request) {
        Route route = call.route();
        IdempotencyPolicy policy = route.idempotency();
        McpPlan plan = McpPlanner.plan(request, route.mcp(), dialect.catalogue(), policy.key().header(), route.isTaggedIdempotent(),
                keys);
        if (plan instanceof McpPlan.Protect p) {
            String scope = scopes.of(policy.scope(), request).hash();
            McpToolCall tool = p.call();
            McpFacts facts = new McpFacts(tool.rawId(), p.toolLabel(), p.repeatHarmless(), cancelKey(scope, request, tool.rawId()),
                    McpInFlight.sessionKey(scope, request.header(SESSION_HEADER)), false);
            return new CallPlan.Protect(new RecordKey(route.name(), scope, p.key().storeKey()), p.fingerprint().value(),
                    p.key().headerValue(), route.mcp().window(), tool.tool(), facts, null);
        }
        if (plan instanceof McpPlan.Reject r) {
            JsonRpcAnswer a = r.answer();
            return new CallPlan.Answer(new ReadyAnswer(a.status(), JsonRpcAnswer.CONTENT_TYPE, a.body(), r.reason()), null,
                    new McpFacts(null, r.toolLabel(), false, null, null, false));
        }
        McpPlan.PassThrough pass = (McpPlan.PassThrough) plan;
        if ("DELETE".equals(request.method())) {
            // The session ends upstream with its streams: its protected calls' answers would be lost.
            String session = McpInFlight.sessionKey(scopes.of(policy.scope(), request).hash(), request.header(SESSION_HEADER));
            java.util.concurrent.CompletableFuture<Void> quiet = dialect.inFlight().quiet(session);
            if (quiet == null) {
                return new CallPlan.Pass(null, null, null, McpFacts.NONE);
            }
            // Bounded, should a call never settle: its attempts end by timeouts.total, its record soon after.
            long bound = route.timeouts().total().plus(DELETE_MARGIN).toMillis();
            return new CallPlan.Pass(null, null, quiet.completeOnTimeout(null, bound, java.util.concurrent.TimeUnit.MILLISECONDS),
                    McpFacts.NONE);
        }
        McpMessage m = pass.message();
        String cancelled = pass.cancelledRequest();
        if (cancelled != null && dialect.inFlight().contains(cancelKey(scopes.of(policy.scope(), request).hash(), request, cancelled))) {
            return new CallPlan.Answer(ACCEPTED, null, McpFacts.NONE);
        }
        ResponseObserver observer = pass.observesToolsList()
                ? new ToolsListObserver(dialect.catalogue(), pass.toolsListCursor(), m.rawId(), policy.maxResponseBody()) : null;
        String tool = m != null && m.isToolCall() ? m.toolCall().tool() : null;
        return new CallPlan.Pass(tool, observer, null, new McpFacts(null, pass.toolLabel(), false, null, null, pass.isBatch()));
    }

    /**
     * A DLQ replay re-runs a protected {@code tools/call} under its original record: read again for
     * its tool and id (its key and scope come with the record); anything else cannot be re-run.
     */
    @Override
    public CallPlan planReplay(ProxyCall call, RequestView request, RecordKey record) {
        McpMessage m = dev.idemproxy.core.mcp.McpMessageReader.read(request.body());
        if (!m.isToolCall()) {
            return new CallPlan.Reject(Problem.BAD_REQUEST, "a DLQ replay on an MCP route must be a tools/call");
        }
        Route route = call.route();
        McpToolCall tool = m.toolCall();
        String sent = dev.idemproxy.core.idempotency.StoredKey.shown(record.key());
        String fingerprint = dev.idemproxy.core.mcp.McpKeys.fingerprint(request, tool).value();
        McpFacts facts = new McpFacts(tool.rawId(), dialect.catalogue().label(tool.tool()),
                dev.idemproxy.core.mcp.McpOutcomes.repeatHarmless(route.isTaggedIdempotent(), dialect.catalogue(), tool.tool()),
                cancelKey(record.scopeHash(), request, tool.rawId()),
                McpInFlight.sessionKey(record.scopeHash(), request.header(SESSION_HEADER)), false);
        return new CallPlan.Protect(record, fingerprint, sent, route.mcp().window(), tool.tool(), facts, null);
    }

    private static String cancelKey(String scope, RequestView request, String rawId) {
        byte[] id = rawId.getBytes(StandardCharsets.UTF_8);
        String canonical = new String(CanonicalJson.canonicalize(id).orElse(id), StandardCharsets.UTF_8);
        return McpInFlight.key(scope, request.header(SESSION_HEADER), canonical);
    }
}
