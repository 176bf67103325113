package dev.idemproxy.core.call;

import dev.idemproxy.core.idempotency.RequestView;
import dev.idemproxy.core.store.RecordKey;
import java.util.random.RandomGenerator;

/**
 * How one kind of call is understood: the seam where a plain HTTP call ({@link HttpDialect}) and
 * an MCP tool call (the MCP route's dialect) differ. The gate, the protected call and its answer
 * never look inside a request or an answer themselves: they ask the call's dialect whether its
 * body is buffered, what the call is (its {@link CallPlan}: protect, reject, answer at once, or
 * pass through) and whether a repeat is harmless; how an answer is classed
 * ({@link AnswerJudgement}); what of an answer is stored, how a duplicate is answered and how the
 * proxy's own errors read ({@link AnswerForms}); and what the dialect keeps of a call's life
 * ({@link CallLifecycle}). Those three have plain HTTP's answers as their defaults, so a dialect
 * states only where it differs. A route names its dialect by its policy
 * ({@link dev.idemproxy.core.route.Route#dialect()}); {@link Dialects} maps the policy to its dialect.
 *
 * <p>Implementations are thread-safe; a {@link Planner} is per connection.
 */
public interface CallDialect extends AnswerJudgement, AnswerForms, CallLifecycle {

    /**
     * What a dialect keeps for itself in a {@link CallPlan} ({@link CallPlan#facts()}): only the
     * dialect that planned the call reads it.
     */
    interface Facts {}

    /** A connection's planner: it may remember what the connection's last calls shared (credentials, a body). */
    Planner planner(RandomGenerator random);

    /** Decides what a buffered call is, from its head and its body. Not thread-safe. */
    interface Planner {
        /** The call's plan: protect (key, record, fingerprint), reject, answer at once, or pass through. */
        CallPlan plan(ProxyCall call, RequestView request);

        /**
         * The plan of a DLQ replay, which re-runs the call under its original {@code record} (its
         * stored request lost its secrets, so its scope cannot be computed again).
         */
        CallPlan planReplay(ProxyCall call, RequestView request, RecordKey record);
    }

    /** Whether the call's request body is buffered (and the call then reaches the gate), or streams both ways. */
    boolean buffers(ProxyCall call);

    /**
     * Whether the gate plans this buffered call (else, buffered, it is a protected call without a
     * record).
     *
     * @param hasStore whether records can be kept (a store is configured)
     */
    boolean gated(ProxyCall call, boolean hasStore);

    /** Whether executing the call twice does no harm (docs/idempotency.md), so an unknown outcome may be retried. */
    boolean repeatHarmless(ProxyCall call);
}
