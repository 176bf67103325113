package dev.idemproxy.core.call;

import dev.idemproxy.core.idempotency.RequestView;
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
 * an MCP tool call differ. The request relay, the idempotency gate, the attempt loop, the
 * response relay and the settlement never look inside a request or an answer themselves: they ask
 * the call's dialect which key and fingerprint it has, how an answer is classed, whether a repeat
 * is harmless, how a duplicate is answered and how the proxy's own errors read.
 *
 * <p>Implementations are thread-safe; a {@link Planner} is per connection.
 */
public interface CallDialect {

    /** A connection's planner: it may remember what the connection's last calls shared (credentials, a body). */
    Planner planner(RandomGenerator random);

    /** Decides what a protected call is, from its head and its buffered body. Not thread-safe. */
    interface Planner {
        /** The call's plan: its key, record and fingerprint, or the problem that answers it at once. */
        CallPlan plan(ProxyCall call, RequestView request);

        /**
         * The plan of a DLQ replay, which re-runs the call under its original {@code record} (its
         * stored request lost its secrets, so its scope cannot be computed again).
         */
        CallPlan planReplay(ProxyCall call, RequestView request, RecordKey record);
    }

    /** Whether executing the call twice does no harm (CONTRACT §5), so an unknown outcome may be retried. */
    boolean repeatHarmless(ProxyCall call);

    /** The class of an attempt's answer, from its head. */
    AttemptOutcome classify(ProxyCall call, HttpResponse head);

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
}
