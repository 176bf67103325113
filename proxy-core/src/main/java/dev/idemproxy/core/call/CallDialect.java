package dev.idemproxy.core.call;

import dev.idemproxy.core.idempotency.RequestView;
import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StoredResponse;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponse;
import java.util.random.RandomGenerator;

/**
 * How one kind of call is understood: the seam where a plain HTTP call ({@link HttpDialect}) and
 * an MCP tool call ({@link McpDialect}) differ. The request relay, the idempotency gate, the
 * attempt loop, the response relay and the settlement never look inside a request or an answer
 * themselves: they ask the call's dialect whether its body is buffered, what the call is (its
 * {@link CallPlan}: protect, reject, answer at once, or pass through), how an answer is classed
 * (at its head, or once held whole), whether a repeat is harmless, what of an answer is stored,
 * how a duplicate is answered and how the proxy's own errors read.
 *
 * <p>Implementations are thread-safe; a {@link Planner} is per connection.
 */
public interface CallDialect {

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
     * Whether the gate plans this buffered call.
     *
     * @param hasStore whether records can be kept (a store is configured)
     */
    boolean gated(ProxyCall call, boolean hasStore);

    /**
     * The answer to a buffered call whose body is larger than {@code maxRequestBody}.
     *
     * @param prefix the body's first bytes as far as they were read (maybe none); not to be modified
     */
    FullHttpResponse tooLarge(ByteBufAllocator alloc, ProxyCall call, byte[] prefix, String detail);

    /** Whether executing the call twice does no harm (CONTRACT §5), so an unknown outcome may be retried. */
    boolean repeatHarmless(ProxyCall call);

    /**
     * Whether an attempt's answer is held whole (its body read to the end, up to
     * {@code maxResponseBody}) and classed by {@link #classifyHeld}, instead of classed from its
     * head by {@link #classify}.
     */
    boolean holdsAnswer(ProxyCall call, HttpResponse head);

    /** The class of an attempt's answer, from its head. */
    AttemptOutcome classify(ProxyCall call, HttpResponse head);

    /** The class of an attempt's answer held whole ({@link #holdsAnswer}): its head and its whole body. */
    AttemptOutcome classifyHeld(ProxyCall call, HttpResponse head, byte[] body);

    /**
     * What of an upstream answer captured for the call's record is stored and replayed: for HTTP
     * the answer as it came.
     *
     * @param captured the answer as captured, or null when it was not retained (too large)
     */
    StoredResponse stored(ProxyCall call, StoredResponse captured);

    /** A duplicate's answer: the stored response, marked replayed, with the original call's id and attempts. */
    FullHttpResponse replay(ByteBufAllocator alloc, ProxyCall duplicate, StoredResponse stored, String callId, int attempts);

    /**
     * A proxy-made answer as this call's client reads errors: {@code application/problem+json} for
     * HTTP. The caller owns the response.
     *
     * @param callId the call's id, or null when it has none yet
     */
    FullHttpResponse problem(ByteBufAllocator alloc, ProxyCall call, Problem problem, String detail, String callId);

    /** The same answer as kept in the call's record, replayed to its duplicates. */
    StoredResponse storedProblem(ProxyCall call, Problem problem, String detail, String callId);

    /**
     * A protected call has begun: its gate is claiming it ({@link ProxyCall#startInDialect}).
     * {@link #settled} follows exactly once.
     */
    void started(ProxyCall call);

    /** A protected call that {@link #started} has ended, however: answered, replayed, refused, or its client gone first. */
    void settled(ProxyCall call);

    /** Counts the call's end in the dialect's own metrics (as {@link CallLog} counts it in the request total). */
    void finished(ProxyCall call, CallOutcome outcome);
}
