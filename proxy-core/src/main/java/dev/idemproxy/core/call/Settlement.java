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
    /** The call's claim on its record; null for a call without one. */
    private final RecordedProtection recorded;
    private final Instant createdAt;
    private final boolean writesReceipt;
    private final Runnable onEnded;

    /**
     * @param createdAt     when the call started: its receipts' createdAt
     * @param writesReceipt whether the recorder writes the final receipt itself (a call without a record)
     * @param onEnded       run once the call has settled, before its record is written
     */
    public Settlement(CallServices services, RecordedProtection recorded, Instant createdAt, boolean writesReceipt,
            Runnable onEnded) {
        this.services = services;
        this.recorded = recorded;
        this.createdAt = createdAt;
        this.writesReceipt = writesReceipt;
        this.onEnded = onEnded;
    }

    CompletionStage<?> settle(ProxyCall call, CallIdentity identity, CallSettlement s) {
        RetryDecision d = s.decision();
        if (d != null && RetryDecision.BUDGET_TASK.equals(d.reason())) {
            services.metrics().budgetExhausted(call.route().name(), ProxyMetrics.BUDGET_TASK);
        } else if (d != null && RetryDecision.BUDGET_ROUTE.equals(d.reason())) {
            services.metrics().budgetExhausted(call.route().name(), ProxyMetrics.BUDGET_ROUTE);
        }
        ReceiptPut receipt = services.recorder().settled(call, identity, recorded != null ? recorded.key() : null,
                recorded != null ? recorded.owner() : null, createdAt, s, writesReceipt);
        services.log().finished(call, outcomeOf(s), s.finalStatus(), identity.callId(), identity.bizId(), identity.key(),
                s.attempts(), s.reason());
        call.releaseBody();
        onEnded.run();
        return call.protection() != null ? call.protection().settle(s, recorded != null ? receipt : null)
                : CompletableFuture.completedFuture(null);
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
