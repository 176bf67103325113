package dev.idemproxy.core.call;

import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.retry.OutcomeClass;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.store.ReceiptPut;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The end of a {@link ProtectedCall}: its one {@link CallSettlement} feeds, in this order, the
 * budget metrics, the call's receipt and dead letter ({@link CallRecorder}), its log line and
 * request count ({@link CallLog}), and its idempotency record ({@link CallProtection#settle}),
 * whose write the answer's last bytes wait for. Then {@code onEnded} tells the client side the
 * call no longer needs its connection's state. Used once per call, on its event loop.
 */
public final class Settlement {
    private final CallServices services;
    private final ProxyCall call;
    private final CallIdentity identity;
    /** The call's claim on its record; null for a call without one. */
    private final RecordedProtection recorded;
    private final Instant createdAt;
    private final boolean writesReceipt;
    private final Runnable onEnded;
    /** The end, once settled; the line waits for it and for the answer's last write. */
    private CallSettlement settled;
    private boolean lastWrite;
    private boolean logged;

    /**
     * @param createdAt     when the call started: its receipts' createdAt
     * @param writesReceipt whether the recorder writes the final receipt itself (a call without a record)
     * @param onEnded       run once the call has settled, before its record is written
     */
    public Settlement(CallServices services, ProxyCall call, CallIdentity identity, RecordedProtection recorded,
            Instant createdAt, boolean writesReceipt, Runnable onEnded) {
        this.services = services;
        this.call = call;
        this.identity = identity;
        this.recorded = recorded;
        this.createdAt = createdAt;
        this.writesReceipt = writesReceipt;
        this.onEnded = onEnded;
    }

    CompletionStage<?> settle(CallSettlement s) {
        RetryDecision d = s.decision();
        if (d != null && RetryDecision.BUDGET_TASK.equals(d.reason())) {
            services.metrics().budgetExhausted(call.route().name(), ProxyMetrics.BUDGET_TASK);
        } else if (d != null && RetryDecision.BUDGET_ROUTE.equals(d.reason())) {
            services.metrics().budgetExhausted(call.route().name(), ProxyMetrics.BUDGET_ROUTE);
        }
        ReceiptPut receipt = services.recorder().settled(call, identity, recorded != null ? recorded.key() : null,
                recorded != null ? recorded.owner() : null, createdAt, s, writesReceipt);
        settled = s;
        logOnce();
        call.releaseBody();
        onEnded.run();
        return call.protection() != null ? call.protection().settle(s, recorded != null ? receipt : null)
                : CompletableFuture.completedFuture(null);
    }

    /**
     * The answer's last write is about to be issued, its body bytes counted on the call (or the
     * answer was cut). The call's line goes out now if the call has settled: so that {@code out}
     * counts every body byte the client gets, and whoever reads the answer finds the line (and
     * the request count) already there. The last write normally comes after the settlement, since
     * the answer's end waits for the call's record; a response cut mid-body comes first.
     */
    public void lastWrite() {
        lastWrite = true;
        logOnce();
    }

    private void logOnce() {
        if (settled == null || !lastWrite || logged) {
            return;
        }
        logged = true;
        services.log().finished(call, outcomeOf(settled), settled.finalStatus(), identity.callId(), identity.bizId(),
                identity.key(), settled.attempts(), settled.reason());
    }

    /** The outcome tag of a settled protected call. */
    static CallOutcome outcomeOf(CallSettlement s) {
        RetryDecision d = s.decision();
        if (s.truncated() || d == null || d.deadLetter()) {
            return CallOutcome.FAILED;
        }
        return d.outcome() == OutcomeClass.EXECUTED || d.store() ? CallOutcome.EXECUTED : CallOutcome.NOT_EXECUTED;
    }
}
