package dev.idemproxy.core.call;

import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.retry.OutcomeClass;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.util.Mistakes.Mistake;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The idempotency record a claimed call holds: its lease renewed every third of its length while
 * the call lives, and its end written when the call settles — stored (replayable), marked not
 * retained, or released, as the final decision says — then the duplicates waiting here woken with
 * that outcome. Only this owner can do any of it (the store fences by owner token). Every answer
 * of the store comes back through the call's door. Not thread-safe: used on the call's event loop.
 */
final class Recording {
    private static final Logger LOG = LoggerFactory.getLogger(Recording.class);

    private final CallServices services;
    private final Door door;
    private final RecordKey key;
    /** The claim as this call holds it: every renewal and end names it, and writes it back should the record be gone. */
    private final OwnedClaim claim;
    private final IdempotencyPolicy policy;
    /** For a derived key, how long its record counts from the claim; null for any other key. */
    private final Duration derivedWindow;
    private final long claimedAtNanos;
    private ScheduledFuture<?> renewal;
    /** What a claim of the key answers once the end is written; null when it is released. */
    private ClaimResult outcome;
    /** The receipt the end writes with the record; null when none. */
    private ReceiptPut receipt;

    Recording(CallServices services, Door door, RecordKey key, OwnedClaim claim, IdempotencyPolicy policy, Duration derivedWindow) {
        this.services = services;
        this.door = door;
        this.key = key;
        this.claim = claim;
        this.policy = policy;
        this.derivedWindow = derivedWindow;
        this.claimedAtNanos = services.ticker().nanos();
    }

    RecordKey key() {
        return key;
    }

    /** This execution's owner token: what a release of its dead letter fences. */
    String owner() {
        return claim.owner();
    }

    /** Renews the lease a third of its length from now, and so on until the call settles. */
    void renewLater() {
        long every = Math.max(50, policy.lease().toMillis() / 3);
        renewal = door.after(TimeUnit.MILLISECONDS.toNanos(every), CallEvent.Signal.RENEW);
    }

    void renew() {
        door.when(records().renew(key, claim, policy.lease()), (ok, err) -> new CallEvent.Renewed(Boolean.TRUE.equals(ok), err));
        renewLater();
    }

    void renewed(CallEvent.Renewed r) {
        if (r.failure() == null && !r.ok()) {
            LOG.warn("[call={}] lost the lease on its idempotency record (taken over after a lapse)", claim.callId());
        }
    }

    /**
     * Writes the call's end, with {@code receipt} when the record completes with a response (else
     * the receipt goes on its own). The answer's end waits for the first try's answer
     * ({@link CallEvent.Recorded}); waiters are woken after the last.
     */
    void end(CallSettlement s, ReceiptPut endReceipt) {
        if (renewal != null) {
            renewal.cancel(false);
        }
        RetryDecision d = s.decision();
        boolean planted = services.mistakes().has(Mistake.RELEASE_UNKNOWN_OUTCOME) && d != null && d.outcome() == OutcomeClass.UNKNOWN;
        boolean keep = !planted && (s.truncated() || (d != null && d.store()));  // planted only: an unknown outcome released
        boolean completes = keep && s.response() != null;
        if (endReceipt != null && !completes) {
            writeReceipt(endReceipt);
        }
        receipt = completes ? endReceipt : null;
        outcome = !keep ? null : s.response() == null ? new ClaimResult.NotRetained(claim.callId(), s.finalStatus(), s.attempts())
                : new ClaimResult.Completed(s.response(), claim.callId(), s.attempts());
        if (outcome != null) {
            // before the write: a waiter's poll may see the record gone after it
            services.waiters().settling(key, claim.fingerprint(), outcome);
        }
        Duration kept = retention();
        services.recorder().writes().record(door, () -> write(s, keep, kept), claim.callId());
    }

    private CompletionStage<Boolean> write(CallSettlement s, boolean keep, Duration kept) {
        if (!keep) {
            return records().release(key, claim.owner());
        }
        if (s.response() == null) {
            return records().markNotRetained(key, claim, s.finalStatus(), s.attempts(), kept);
        }
        return records().complete(key, claim, s.response(), s.attempts(), kept, receipt);
    }

    /** The last try of the end's write answered: waiters are woken with what it settled (or claim again). */
    void recorded(CallEvent.Recorded r) {
        boolean written = r.failure() == null && r.ok();
        if (r.failure() == null && !r.ok()) {
            LOG.warn("[call={}] the idempotency record was no longer ours when the call ended", claim.callId());
            if (receipt != null) {
                door.when(records().get(key), (found, err) -> new CallEvent.RecordFound(err == null ? found.orElse(null) : null, err));
            }
        }
        services.waiters().wake(key, claim.fingerprint(), written ? outcome : null, door.loop());
    }

    /**
     * The receipt of an end the store refused, unless the record now belongs to another execution
     * of this same call (a DLQ replay, which claims under the call id with an owner token of its
     * own): that execution's receipt is the call's, and this late end must not overwrite it. A
     * record taken over by another call, or gone, does not stop it: the receipt is then the only
     * trace of what this call did.
     */
    void found(CallEvent.RecordFound f) {
        IdempotencyRecord now = f.record();
        if (now != null && claim.callId().equals(now.callId()) && !claim.owner().equals(now.owner()) && !keeps(now)) {
            LOG.info("[call={}] not writing the ended execution's receipt: the call runs (or ran) again under the record",
                    claim.callId());
            return;
        }
        writeReceipt(receipt);
    }

    /** Whether {@code now} holds this call's own outcome (kept by a waiter whose claim took the record from under it). */
    private boolean keeps(IdempotencyRecord now) {
        if (outcome instanceof ClaimResult.Completed c) {
            return now.state() == IdempotencyRecord.State.COMPLETED && now.attempts() == c.attempts()
                    && now.status() == c.response().status();
        }
        return outcome instanceof ClaimResult.NotRetained n && now.state() == IdempotencyRecord.State.NOT_RETAINED
                && now.attempts() == n.attempts() && now.status() == n.status();
    }

    private void writeReceipt(ReceiptPut r) {
        services.recorder().writes().write(door.loop(), () -> services.stores().receipts().putReceipt(r.receipt(), r.ttl()),
                claim.callId(), "receipt");
    }

    /**
     * How long the outcome is kept: {@code ttl}; for a derived key, only until its window after the
     * first call, so the same parts later than that are a new call (the window runs from the claim).
     */
    private Duration retention() {
        if (derivedWindow == null) {
            return policy.ttl();
        }
        Duration left = derivedWindow.minusNanos(services.ticker().nanos() - claimedAtNanos);
        Duration kept = left.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : left;
        return kept.compareTo(policy.ttl()) < 0 ? kept : policy.ttl();
    }

    private RecordStore records() {
        return services.records();
    }

}
