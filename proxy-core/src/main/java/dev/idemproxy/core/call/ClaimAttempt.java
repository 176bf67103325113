package dev.idemproxy.core.call;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.util.Failures;
import dev.idemproxy.core.util.LogThrottle;
import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.store.ClaimAnswerLostException;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StorePolicy;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One protected call's claim of its idempotency record, from its first try to the answer that
 * decides the call: claimed (the call goes on, holding the claim), completed earlier (a replay),
 * refused (409, 422, 503), or forwarded unprotected because the store did not answer
 * ({@code onUnavailable: passthrough}). A duplicate of an in-flight call waits: woken by its owner
 * when that settles in this process ({@link InFlightWaiters}), and polling the store for an owner
 * elsewhere, until {@code waitTimeout}. Store answers hop back to the call's event loop.
 *
 * <p>Its client may leave at any time ({@link #abandon}): a claim that then still succeeds is
 * released at once (nothing was forwarded), so retries of the call do not wait out its lease.
 * Not thread-safe: runs on the call's event loop.
 */
public final class ClaimAttempt {
    private static final Logger LOG = LoggerFactory.getLogger(ClaimAttempt.class);
    /** A store outage fails every call: one line per 10 s says so (each call's own line says what it got). */
    private static final LogThrottle STORE_DOWN_LOG = LogThrottle.every(Duration.ofSeconds(10));
    private static final long POLL_MILLIS = 100;

    /** What the claim decided; exactly one is called, on the loop, unless the client left first. */
    public interface Outcome {
        /** The call holds the record: forward it. */
        void claimed(ClaimAttempt claim, RecordedProtection protection);

        /** The call completed before: answer {@code done}'s response as a replay. */
        void completed(ClaimAttempt claim, ClaimResult.Completed done);

        /** The call cannot go on: answer this problem. */
        void refused(ClaimAttempt claim, Problem problem, String detail, String callId);

        /** The store did not answer and the route forwards unprotected ({@code onUnavailable: passthrough}). */
        void unprotected(ClaimAttempt claim, CallProtection protection);
    }

    private final CallServices services;
    private final EventLoop loop;
    private final ProxyCall call;
    private final CallPlan plan;
    private final CallIdentity identity;
    private final Instant createdAt;
    private final Outcome outcome;
    /**
     * This execution's owner token: its claim, every later write to the record, and a dead letter's
     * release name it. Its own, not the call id: a DLQ replay of the call claims under the same call
     * id while the original's end may still be on its way.
     */
    private final String owner;
    private final long waitUntil;
    /** The fingerprint claimed with: the plan's, or once {@link #legacyAsked}, the legacy one. */
    private String fingerprint;
    /** A claim with the plan's legacy fingerprint has been made. */
    private boolean legacyAsked;
    /** False once decided, or once the client left. */
    private boolean live = true;
    private Consumer<ClaimResult> wake;
    private ScheduledFuture<?> poll;
    private boolean claiming;
    /** It has waited for an owner here: a poll's answer is checked against that owner's outcome. */
    private boolean waited;
    /** The owner's outcome, handed over while a poll was on its way. */
    private ClaimResult settled;

    public ClaimAttempt(CallServices services, EventLoop loop, ProxyCall call, CallPlan plan, CallIdentity identity,
            Instant createdAt, Outcome outcome) {
        this.services = requireNonNull(services, "services");
        this.loop = requireNonNull(loop, "loop");
        this.call = requireNonNull(call, "call");
        this.plan = requireNonNull(plan, "plan");
        this.identity = requireNonNull(identity, "identity");
        this.createdAt = requireNonNull(createdAt, "createdAt");
        this.outcome = requireNonNull(outcome, "outcome");
        this.owner = CallId.owner(identity.callId(), services.random());
        this.fingerprint = plan.fingerprint();
        this.waitUntil = services.ticker().nanos() + call.route().idempotency().waitTimeout().toNanos();
    }

    public ProxyCall call() {
        return call;
    }

    public CallIdentity identity() {
        return identity;
    }

    public void start() {
        claim();
    }

    /** The client left: the claim is no longer wanted; one that still succeeds is released. */
    public void abandon() {
        live = false;
        stopWaiting();
    }

    /**
     * Claims the record. An answer the store already had when it returned (the memory store, a
     * near-cache hit) is handled at once, in this turn of the loop, so a replay's response leaves
     * with the reads of the same turn; a later answer comes back to the loop as a task of its own.
     */
    private void claim() {
        OnLoop.then(services.records().claim(plan.record(), fingerprint, owner, call.route().idempotency().lease(),
                claimContext()), loop, this::onClaim);
    }

    /**
     * The claim keeps its record, should the call's owner die mid-call, as long as the outcome
     * would have been kept: the route's {@code ttl}, or for a derived key the plan's window
     * (capped at the ttl). A duplicate within that time takes the record over as an unknown outcome.
     */
    private ClaimContext claimContext() {
        return new ClaimContext(identity.callId(), retention(), services.recorder().startReceipt(call, identity, createdAt));
    }

    private Duration retention() {
        return plan.retention(call.route().idempotency().ttl());
    }

    private void onClaim(ClaimResult answered, Throwable failure) {
        claiming = false;
        ClaimResult result = answered;
        Throwable error = failure == null ? null : Failures.cause(failure);
        RecordKey key = plan.record();
        if (waited && live && (result instanceof ClaimResult.InFlight || result instanceof ClaimResult.Claimed)) {
            // A waiter's poll: the owner here may have settled meanwhile, and the store dropped its record since.
            ClaimResult known = settled != null ? settled : services.waiters().settled(key);
            if (known != null) {
                if (result instanceof ClaimResult.Claimed && !((ClaimResult.Claimed) result).takeover()) {
                    services.records().release(key, owner);  // the fresh claim is ours to undo
                }
                result = known;
            }
        }
        if (!(result instanceof ClaimResult.InFlight) || error != null) {
            stopWaiting();
        }
        if (error instanceof ClaimAnswerLostException lost
                && (!live || services.onUnavailable() != StorePolicy.OnUnavailable.PASSTHROUGH)) {
            // Nothing is forwarded for this claim (its client left, or it is answered 503), so a
            // claim the store may have written without answering is undone once the store answers
            // again, instead of holding the key for a lease. Under passthrough the call goes on.
            services.records().releaseLostClaim(key, owner, lost);
        }
        if (!live) {
            // A fresh claim whose client left is released; a takeover is not: the earlier owner
            // may have executed, so its record stays for the next duplicate's takeover rules.
            if (error == null && result instanceof ClaimResult.Claimed && !((ClaimResult.Claimed) result).takeover()) {
                releaseOrphanedClaim();
            }
            return;
        }
        if (error != null) {
            storeFailed(error);
        } else if (result instanceof ClaimResult.Claimed) {
            live = false;
            outcome.claimed(this, protection((ClaimResult.Claimed) result));
        } else if (result instanceof ClaimResult.Completed) {
            live = false;
            outcome.completed(this, (ClaimResult.Completed) result);
        } else if (result instanceof ClaimResult.InFlight) {
            inFlight((ClaimResult.InFlight) result);
        } else if (result instanceof ClaimResult.NotRetained) {
            ClaimResult.NotRetained nr = (ClaimResult.NotRetained) result;
            refuse(Problem.RESULT_NOT_RETAINED, "the call completed with status " + nr.status()
                    + " but its response was larger than maxResponseBody", nr.callId());
        } else if (result instanceof ClaimResult.FingerprintMismatch && plan.legacyFingerprint() != null && !legacyAsked) {
            claimWithLegacyFingerprint();
        } else if (result instanceof ClaimResult.FingerprintMismatch) {
            services.metrics().keyConflict(call.route().name(), ProxyMetrics.KIND_PAYLOAD_MISMATCH);
            refuse(Problem.KEY_REUSED_WITH_DIFFERENT_PAYLOAD, "this key was used with a different request",
                    ((ClaimResult.FingerprintMismatch) result).callId());
        }
    }

    private RecordedProtection protection(ClaimResult.Claimed claimed) {
        OwnedClaim claim = new OwnedClaim(owner, identity.callId(), fingerprint, createdAt, retention());
        RecordedProtection protection = new RecordedProtection(services.records(), services.stores().receipts(), plan.record(),
                claim, identity, call.route().idempotency(), loop, services.waiters(), plan.derivedKey() ? plan.window() : null,
                services.random(), services.ticker(), services.mistakes());
        protection.startRenewing();
        if (claimed.takeover()) {
            protection.tookOver(claimed.previousCallId());
        }
        return protection;
    }

    /**
     * A record written by a build that fingerprinted without the method and path holds the legacy
     * fingerprint: asks once more with it, so such a record is still replayed (or waited for) for
     * the rest of its ttl. The two fingerprints never match each other's records, so a record
     * written since still answers 422 to another endpoint. (Should the record go in between, by
     * expiry or an operator's release, this call claims it afresh under the legacy fingerprint,
     * and its record behaves as one written before, for its ttl: nothing runs twice.)
     */
    private void claimWithLegacyFingerprint() {
        legacyAsked = true;
        fingerprint = plan.legacyFingerprint().get();
        claiming = true;
        claim();
    }

    private void inFlight(ClaimResult.InFlight f) {
        IdempotencyPolicy policy = call.route().idempotency();
        if (policy.onConcurrent() == IdempotencyPolicy.OnConcurrent.REJECT || services.ticker().nanos() - waitUntil >= 0) {
            services.metrics().keyConflict(call.route().name(), ProxyMetrics.KIND_IN_FLIGHT);
            refuse(Problem.KEY_IN_FLIGHT, policy.onConcurrent() == IdempotencyPolicy.OnConcurrent.REJECT
                    ? "a call with this key is in flight" : "a call with this key is still in flight after waitTimeout",
                    f.ownerCallId());
            return;
        }
        // Wait: woken by the owner when it settles in this process, or poll for one elsewhere.
        if (wake == null) {
            Consumer<ClaimResult> w = outcomeOfOwner -> loop.execute(() -> settledWhileWaiting(outcomeOfOwner));
            waited = true;
            ClaimResult already = services.waiters().await(plan.record(), w);
            if (already != null) {
                onClaim(already, null);  // the owner here settled between the store's answer and now
                return;
            }
            wake = w;
        }
        long untilDeadline = TimeUnit.NANOSECONDS.toMillis(waitUntil - services.ticker().nanos());
        poll = loop.schedule(this::retryClaim, Math.max(1, Math.min(POLL_MILLIS, untilDeadline)), TimeUnit.MILLISECONDS);
    }

    /**
     * The owner in this process settled: answer from its outcome (the store answered InFlight, so
     * the fingerprints matched), or claim again when it released the key. The wake-up was used up.
     */
    private void settledWhileWaiting(ClaimResult ownerOutcome) {
        if (!live) {
            return;
        }
        wake = null;
        if (ownerOutcome == null) {
            retryClaim();
        } else if (claiming) {
            settled = ownerOutcome;  // the poll on its way answers with it
        } else {
            onClaim(ownerOutcome, null);
        }
    }

    /** A poll of the store; the waiter stays registered meanwhile, so the owner's wake-up cannot slip past. */
    private void retryClaim() {
        if (!live || claiming) {
            return;
        }
        if (poll != null) {
            poll.cancel(false);
            poll = null;
        }
        ClaimResult known = services.waiters().settled(plan.record());
        if (waited && known != null) {
            onClaim(known, null);
            return;
        }
        claiming = true;
        claim();
    }

    /**
     * The client left while its claim was on the way: nothing was forwarded, so the key is
     * released at once rather than held until its lease lapses, which would keep every retry of
     * the call waiting and then failing with 409.
     */
    private void releaseOrphanedClaim() {
        services.recorder().abandoned(call, identity, createdAt);  // the claim wrote it as PROCESSING
        services.records().release(plan.record(), owner).whenComplete((ok, err) -> {
            if (err != null) {
                LOG.warn("[call={}] could not release the key of a call whose client left before it was claimed: {}",
                        identity.callId(), err.toString());
            }
            services.waiters().wake(plan.record(), null, loop);
        });
    }

    private void storeFailed(Throwable error) {
        long held = STORE_DOWN_LOG.pass();
        if (held >= 0) {
            LOG.warn("[call={}] idempotency store unavailable: {}{}", identity.callId(), error.toString(), LogThrottle.more(held));
        }
        if (services.onUnavailable() == StorePolicy.OnUnavailable.PASSTHROUGH) {
            live = false;
            services.metrics().storePassthrough(call.route().name());
            // Unrecorded, but with the key already resolved: the client's (or derived) key still reaches the upstream.
            outcome.unprotected(this, CallProtection.passthrough(identity));
            return;
        }
        refuse(Problem.STORE_UNAVAILABLE, "the idempotency store did not answer; nothing was forwarded", null);
    }

    private void refuse(Problem problem, String detail, String callId) {
        live = false;
        stopWaiting();
        outcome.refused(this, problem, detail, callId);
    }

    private void stopWaiting() {
        if (wake != null) {
            services.waiters().forget(plan.record(), wake);
            wake = null;
        }
        if (poll != null) {
            poll.cancel(false);
            poll = null;
        }
    }
}
