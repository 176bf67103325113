package dev.idemproxy.core.call;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.retry.Deadline;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.retry.TaskBudgetDecision;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.tries.TryLog;
import dev.idemproxy.core.upstream.UpstreamConnection;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * One protected call as its roles share it: who it is, its deadline, the attempt under way and its
 * upstream connection, the task's budget as last seen, and how it ended. The roles, each in a
 * class of its own:
 * <ul>
 *   <li>{@link AttemptLoop}: sends the buffered request, classifies each answer, asks
 *       {@link dev.idemproxy.core.retry.RetryRules} what follows, waits the backoff;</li>
 *   <li>{@link ResponseRelay}: streams the final answer to the client while capturing it;</li>
 *   <li>{@link ReceiptChecks}: asks the upstream's receipt endpoint before an unsafe retry;</li>
 *   <li>{@link Settlement}: when the call ends, one {@link CallSettlement} feeds its record, its
 *       receipt and dead letter, the metrics and the call log.</li>
 * </ul>
 * Not thread-safe: every role runs on the client channel's event loop, which the upstream
 * connections share, so nothing here needs locking.
 */
public final class ProtectedCall {
    final ProxyCall call;
    final CallIdentity identity;
    /** The request headers as rewritten for the upstream (hop-by-hop gone). */
    final HttpHeaders upstreamHeaders;
    final CallServices services;
    final ClientSide client;
    final Deadline deadline;
    final Settlement settlement;
    /** Whether executing the call twice does no harm (its dialect says), so an unknown outcome may be retried. */
    final boolean repeatHarmless;
    final ResponseRelay relay;
    final AttemptLoop attempts;
    /** The call's tries as they start, end and are decided on: kept with its receipt. */
    final TryLog tries;

    /** The attempt under way (1 for the first); 0 before the first. */
    int attempt;
    /** The attempt's upstream connection; null between attempts. */
    UpstreamConnection conn;
    /** The task's budget as last seen; null when the call names no task or the store did not answer. */
    TaskBudgetDecision task;
    /** The decision that ended the call (null for a deadline that expired before any attempt). */
    RetryDecision finalDecision;
    /** The status the client got. */
    int finalStatus;
    boolean settled;

    /**
     * @param upstreamHeaders the request headers as rewritten for the upstream
     * @param settlement      what the call's end feeds (record, receipt, DLQ, metrics, log)
     */
    public ProtectedCall(ProxyCall call, CallIdentity identity, HttpHeaders upstreamHeaders, CallServices services,
            ClientSide client, Deadline deadline, Settlement settlement) {
        this.call = requireNonNull(call, "call");
        this.identity = requireNonNull(identity, "identity");
        this.upstreamHeaders = requireNonNull(upstreamHeaders, "upstreamHeaders");
        this.services = requireNonNull(services, "services");
        this.client = requireNonNull(client, "client");
        this.deadline = requireNonNull(deadline, "deadline");
        this.settlement = requireNonNull(settlement, "settlement");
        this.repeatHarmless = call.dialect().repeatHarmless(call);
        this.tries = new TryLog(services.ticker(), call.startNanos());
        this.relay = new ResponseRelay(this);
        this.attempts = new AttemptLoop(this);
    }

    /** Starts the call: a takeover's receipt check, or the first attempt. */
    public void start() {
        attempts.start();
    }

    /** The client drained its buffer (or went away): the response's reading resumes. */
    public void clientWritable() {
        relay.clientWritable();
    }

    /** Upstream attempts made so far. */
    public int attemptsMade() {
        return attempt;
    }

    /** Ends the attempt's lease on its connection: back to the pool when {@code reusable}. */
    void releaseConn(boolean reusable) {
        UpstreamConnection c = conn;
        conn = null;
        if (c != null) {
            c.release(reusable);
        }
    }

    /** Pauses or resumes reading the upstream's answer (back-pressure from the client). */
    void readUpstream(boolean read) {
        if (conn != null) {
            conn.channel().config().setAutoRead(read);
        }
    }

    /** The headers every answer of the call carries: X-Call-Id, X-Attempts, and the task's budget left. */
    void decorate(HttpHeaders h) {
        identity.decorate(h, attempt);
        if (task != null) {
            h.set(CallIdentity.X_RETRY_BUDGET_REMAINING, Long.toString(task.remaining()));
        }
    }

    /** Ends the call once (later calls do nothing); the stage completes when its record is written. */
    java.util.concurrent.CompletionStage<?> settle(StoredResponse response, boolean truncated) {
        if (settled) {
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }
        settled = true;
        attempts.stopTimer();
        return settlement.settle(new CallSettlement(finalDecision, attempt,
                truncated ? dev.idemproxy.core.problem.Problem.AMBIGUOUS_OUTCOME.status() : finalStatus, response, truncated,
                tries.finish(finalDecision)));
    }
}
