package dev.idemproxy.core.call;

import dev.idemproxy.core.call.CallEvent.TimerKind;
import dev.idemproxy.core.store.ClaimAnswerLostException;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.StorePolicy;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim phase of a recorded {@link ProtectedCall}: claims the record, reads the store's answer
 * through {@link ClaimSteps} and says what the call does next ({@link ClaimSteps.Next}). A duplicate of an
 * in-flight call waits: woken by its owner when that settles in this process
 * ({@link InFlightWaiters}), and polling the store for an owner elsewhere, until
 * {@code waitTimeout}. A client that leaves meanwhile abandons the call: a claim that still
 * succeeds is released at once (nothing was forwarded), so its retries do not wait out its lease.
 * Not thread-safe: used on the call's event loop.
 */
final class Claiming {
    private static final Logger LOG = LoggerFactory.getLogger(Claiming.class);
    private static final long POLL_MILLIS = 100;

    private final ProxyCall call;
    private final CallPlan.Protect plan;
    private final CallIdentity identity;
    private final Instant createdAt;
    private final CallServices services;
    private final Door door;
    /** This execution's owner token (not the call id: a DLQ replay claims under the same call id). */
    private final String owner;
    private final long waitUntil;
    /** The fingerprint claimed with: the plan's, or once {@link #legacyAsked}, the legacy one. */
    private String fingerprint;
    private boolean legacyAsked;
    /** Registered with the waiters while the call waits for an owner here; null otherwise. */
    private Consumer<ClaimResult> wake;
    private ScheduledFuture<?> poll;
    /** It has waited for an owner here: a poll's answer is checked against that owner's outcome. */
    private boolean waited;
    /** The owner's outcome, handed over while a poll was on its way. */
    private ClaimResult settled;
    /** What the gate answers: a replay's stored answer, or a refusal. */
    private ClaimResult.Completed done;
    private ClaimSteps.Refuse refusal;
    /** The owner's outcome this call is writing into the record its claim took ({@link KeptOutcome}); null when none. */
    private ClaimResult keeping;
    private final GateReceipt receipt;

    Claiming(ProxyCall call, CallPlan.Protect plan, CallIdentity identity, Instant createdAt, CallServices services, Door door) {
        this.call = call;
        this.plan = plan;
        this.identity = identity;
        this.createdAt = createdAt;
        this.services = services;
        this.door = door;
        this.owner = CallId.owner(identity.callId(), services.random());
        this.fingerprint = plan.fingerprint();
        this.waitUntil = services.ticker().nanos() + call.route().idempotency().waitTimeout().toNanos();
        this.receipt = new GateReceipt(services, door, call, identity, createdAt);
    }

    /** Claims the record, kept (should its owner die mid-call) as long as the outcome would have been. */
    void claim() {
        ClaimContext ctx = new ClaimContext(identity.callId(), retention(),
                services.recorder().startReceipt(call, identity, createdAt));
        door.when(services.records().claim(plan.record(), fingerprint, owner, call.route().idempotency().lease(), ctx),
                CallEvent.ClaimAnswered::new);
    }

    private Duration retention() {
        return plan.retention(call.route().idempotency().ttl());
    }

    /** An event of the claim phase {@code phase}; the next step, or null to stay. */
    ClaimSteps.Next on(CallEvent e, CallPhase phase) {
        if (e instanceof CallEvent.ClaimAnswered a) {
            return answered(a.result(), a.failure(), phase != CallPhase.ABANDONED);
        }
        if (e instanceof CallEvent.Kept k) {
            return kept(k, phase != CallPhase.ABANDONED);
        }
        if (phase == CallPhase.ABANDONED) {
            if (e instanceof CallEvent.Released r) {
                OrphanedClaim.released(services, door, plan.record(), owner, fingerprint, identity, r.failure());
            } else {
                CallEvent.drop(e);
            }
            return null;
        }
        if (e == CallEvent.Signal.CLIENT_GONE) {
            stopWaiting();
            if (phase == CallPhase.WAITING) {
                call.releaseBody();  // no claim on its way: nothing will forward it
                receipt.abandoned();
            }
            return ClaimSteps.Next.ABANDONED;
        }
        if (e instanceof CallEvent.OwnerSettled s) {
            wake = null;  // used up
            if (s.outcome() == null) {
                return phase == CallPhase.WAITING ? poll() : null;  // released: claim again (a poll on its way does)
            }
            if (phase == CallPhase.CLAIMING) {
                settled = s.outcome();  // the poll on its way answers with it
                return null;
            }
            return answered(s.outcome(), null, true);
        }
        if (e instanceof CallEvent.Timer t && t.kind() == TimerKind.POLL && phase == CallPhase.WAITING) {
            return poll();
        }
        CallEvent.drop(e);
        return null;
    }

    /** A poll of the store; the waiter stays registered meanwhile, so the owner's wake-up cannot slip past. */
    private ClaimSteps.Next poll() {
        if (poll != null) {
            poll.cancel(false);
            poll = null;
        }
        ClaimResult known = services.waiters().settled(plan.record(), fingerprint, true);
        if (waited && known != null) {
            return answered(known, null, true);
        }
        claim();
        return ClaimSteps.Next.CLAIMING;
    }

    private ClaimSteps.Next answered(ClaimResult answered, Throwable error, boolean live) {
        ClaimResult result = answered;
        if (waited && live && (result instanceof ClaimResult.InFlight || result instanceof ClaimResult.Claimed)) {
            // A waiter's poll: the owner here may have settled meanwhile. Its outcome is the answer
            // once its record holds it; and when this poll's claim took the record from under it
            // (the record vanished, or the owner's lease lapsed), the owner's write will be refused,
            // so this claim keeps that outcome in the record in its place.
            ClaimResult written = settled != null ? settled : services.waiters().settled(plan.record(), fingerprint, true);
            ClaimResult known = written != null || !(result instanceof ClaimResult.Claimed) ? written
                    : services.waiters().settled(plan.record(), fingerprint, false);
            if (known != null && result instanceof ClaimResult.Claimed) {
                keeping = known;  // answered once the record holds it
                receipt.opened();
                KeptOutcome.write(services, door, plan.record(), owner, fingerprint, identity.callId(), createdAt, known, retention());
                return ClaimSteps.Next.CLAIMING;
            }
            if (known != null) {
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
            services.records().releaseLostClaim(plan.record(), owner, lost);
        }
        if (!live) {
            // A fresh claim whose client left is released. A takeover goes on without its client:
            // the earlier owner may have executed, and only this claim knows which call that was,
            // so it checks (or stores the outcome as ambiguous) for the retries that will come.
            if (error == null && result instanceof ClaimResult.Claimed c) {
                if (c.takeover()) {
                    return new ClaimSteps.Next(ClaimSteps.Kind.FORWARD, recording(c.priors()), c.priors());
                }
                OrphanedClaim.release(services, door, call, identity, createdAt, plan.record(), owner);
            } else {
                receipt.abandoned();
            }
            call.releaseBody();
            return null;
        }
        if (error != null) {
            StoreOutageLog.claimFailed(identity.callId(), error);
        }
        ClaimSteps.Step step = ClaimSteps.next(result, error, call.route().idempotency(), plan.legacyFingerprint() != null
                && !legacyAsked, services.onUnavailable(), services.ticker().nanos() - waitUntil >= 0);
        if (step instanceof ClaimSteps.Hold h) {
            return new ClaimSteps.Next(ClaimSteps.Kind.FORWARD, recording(h.claimed().priors()), h.claimed().priors());
        }
        if (step instanceof ClaimSteps.Replay r) {
            done = r.done();
            return ClaimSteps.Next.REPLAYED;
        }
        if (step instanceof ClaimSteps.Refuse r) {
            stopWaiting();
            if (r.conflict() != null) {
                services.metrics().keyConflict(call.route().name(), r.conflict());
            }
            refusal = r;
            return ClaimSteps.Next.REFUSED;
        }
        if (step instanceof ClaimSteps.Wait) {
            return waitForOwner();
        }
        if (step == ClaimSteps.Simple.ASK_LEGACY) {
            legacyAsked = true;
            fingerprint = plan.legacyFingerprint().get();
            claim();
            return ClaimSteps.Next.CLAIMING;
        }
        return ClaimSteps.Next.UNPROTECTED;
    }

    /**
     * A try of the kept outcome's write answered: written, the call answers with it; refused, it
     * claims again (and waits, or replays); failed, it answers 503 while the write is tried again.
     */
    private ClaimSteps.Next kept(CallEvent.Kept k, boolean live) {
        ClaimResult known = keeping;
        keeping = null;
        if (known == null) {
            return null;  // a later try: the call has answered
        }
        if (!live) {
            call.releaseBody();
            receipt.abandoned();
            return null;
        }
        if (k.failure() != null) {
            stopWaiting();  // 503 while the write is tried again (never passthrough: the owner ran)
            refusal = ClaimSteps.UNAVAILABLE;
            return ClaimSteps.Next.REFUSED;
        }
        if (k.ok()) {
            return answered(known, null, true);
        }
        LOG.info("[call={}] could not keep the outcome it waited for (taken over meanwhile): claiming again", identity.callId());
        return poll();
    }

    /** Wait: woken by the owner when it settles in this process, and poll for one elsewhere. */
    private ClaimSteps.Next waitForOwner() {
        if (wake == null) {
            Consumer<ClaimResult> w = ownerOutcome -> door.enter(new CallEvent.OwnerSettled(ownerOutcome));
            waited = true;
            ClaimResult already = services.waiters().await(plan.record(), fingerprint, w);
            if (already != null) {
                return answered(already, null, true);  // the owner here settled between the store's answer and now
            }
            wake = w;
        }
        long untilDeadline = TimeUnit.NANOSECONDS.toMillis(waitUntil - services.ticker().nanos());
        long pause = Math.max(1, Math.min(POLL_MILLIS, untilDeadline));
        poll = door.after(TimeUnit.MILLISECONDS.toNanos(pause), new CallEvent.Timer(TimerKind.POLL, 0));
        return ClaimSteps.Next.WAITING;
    }

    /** The record this call holds, taken over from {@code priors} (none for a fresh claim), which a renewal writing it back keeps. */
    private Recording recording(List<String> priors) {
        OwnedClaim claim = new OwnedClaim(owner, identity.callId(), fingerprint, createdAt, retention(), priors);
        return new Recording(services, door, plan.record(), claim, call.route().idempotency(),
                plan.derivedKey() ? plan.window() : null);
    }

    /** Answers the duplicate with the stored response of the call it repeats. */
    void replay(ClientSide client, CallWatch watch) {
        receipt.replayed(done);
        GateAnswers.replay(call, identity, services, done, client, watch);
    }

    /** Answers the call with its refusal. */
    void refuse(ClientSide client, CallWatch watch) {
        receipt.refused(refusal.problem());
        GateAnswers.refuse(call, identity, services, refusal, client, watch);
    }

    private void stopWaiting() {
        if (wake != null) {
            services.waiters().forget(plan.record(), fingerprint, wake);
            wake = null;
        }
        if (poll != null) {
            poll.cancel(false);
            poll = null;
        }
    }
}
