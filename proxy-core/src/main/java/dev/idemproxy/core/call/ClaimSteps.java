package dev.idemproxy.core.call;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.StorePolicy;
import java.util.List;

/**
 * What the store's answer to a claim means for the call (docs/idempotency.md), as a value: the
 * claim phase's one decision, a pure function. Stateless.
 */
final class ClaimSteps {
    /** What the call does next. */
    sealed interface Step {}

    /** The call holds the record: forward it (after a takeover's checks). */
    record Hold(ClaimResult.Claimed claimed) implements Step {}

    /** The call completed before: its stored answer is replayed. */
    record Replay(ClaimResult.Completed done) implements Step {}

    /**
     * The call cannot go on: answer this problem.
     *
     * @param callId   the call that holds the key, when one does
     * @param conflict the {@code kind} of {@code idemproxy_key_conflicts_total} it counts as, or null
     */
    record Refuse(Problem problem, String detail, String callId, String conflict) implements Step {}

    /** Another call holds the key: wait for it (woken by its owner here, else polling the store). */
    record Wait(ClaimResult.InFlight owner) implements Step {}

    /** Steps that carry nothing but what they are. */
    enum Simple implements Step {
        /** The record holds the fingerprint an earlier build gave this call: claim again with that one. */
        ASK_LEGACY,
        /** The store did not answer and the route forwards unprotected ({@code onUnavailable: passthrough}). */
        UNPROTECTED
    }

    /** Where the claim leads the call. */
    enum Kind {
        CLAIMING(CallPhase.CLAIMING), WAITING(CallPhase.WAITING), ABANDONED(CallPhase.ABANDONED), REPLAYED(CallPhase.REPLAYED),
        REFUSED(CallPhase.REFUSED), FORWARD(CallPhase.FORWARDING), UNPROTECTED(CallPhase.FORWARDING);

        final CallPhase phase;

        Kind(CallPhase phase) {
            this.phase = phase;
        }
    }

    /**
     * What the call does next: for {@link Kind#FORWARD}, with its record and, when its claim took a
     * lapsed one over, every call that may have executed before it (oldest first; empty otherwise).
     */
    record Next(Kind kind, Recording recording, List<String> priors) {
        static final Next CLAIMING = new Next(Kind.CLAIMING, null, List.of());
        static final Next WAITING = new Next(Kind.WAITING, null, List.of());
        static final Next ABANDONED = new Next(Kind.ABANDONED, null, List.of());
        static final Next REPLAYED = new Next(Kind.REPLAYED, null, List.of());
        static final Next REFUSED = new Next(Kind.REFUSED, null, List.of());
        static final Next UNPROTECTED = new Next(Kind.UNPROTECTED, null, List.of());
    }

    /** The store did not answer: 503, nothing forwarded. */
    static final Refuse UNAVAILABLE = new Refuse(Problem.STORE_UNAVAILABLE, "the idempotency store did not answer; nothing was forwarded",
            null, null);

    private ClaimSteps() {
    }

    /**
     * The step after the store answered {@code result} (or failed with {@code error}).
     *
     * @param legacyLeft     the plan has a legacy fingerprint not asked about yet
     * @param onUnavailable  what the route does when the store does not answer
     * @param waitedOut      the call has waited for an in-flight owner its whole {@code waitTimeout}
     */
    static Step next(ClaimResult result, Throwable error, IdempotencyPolicy policy, boolean legacyLeft,
            StorePolicy.OnUnavailable onUnavailable, boolean waitedOut) {
        if (error != null) {
            return onUnavailable == StorePolicy.OnUnavailable.PASSTHROUGH ? Simple.UNPROTECTED : UNAVAILABLE;
        }
        requireNonNull(result, "result");
        if (result instanceof ClaimResult.Claimed c) {
            return new Hold(c);
        }
        if (result instanceof ClaimResult.Completed c) {
            return new Replay(c);
        }
        if (result instanceof ClaimResult.InFlight f) {
            boolean rejects = policy.onConcurrent() == IdempotencyPolicy.OnConcurrent.REJECT;
            if (rejects || waitedOut) {
                return new Refuse(Problem.KEY_IN_FLIGHT, rejects ? "a call with this key is in flight"
                        : "a call with this key is still in flight after waitTimeout", f.ownerCallId(), ProxyMetrics.KIND_IN_FLIGHT);
            }
            return new Wait(f);
        }
        if (result instanceof ClaimResult.NotRetained nr) {
            return new Refuse(Problem.RESULT_NOT_RETAINED, "the call completed with status " + nr.status()
                    + " but its response was larger than maxResponseBody", nr.callId(), null);
        }
        ClaimResult.FingerprintMismatch m = (ClaimResult.FingerprintMismatch) result;
        return legacyLeft ? Simple.ASK_LEGACY : new Refuse(Problem.KEY_REUSED_WITH_DIFFERENT_PAYLOAD,
                "this key was used with a different request", m.callId(), ProxyMetrics.KIND_PAYLOAD_MISMATCH);
    }
}
