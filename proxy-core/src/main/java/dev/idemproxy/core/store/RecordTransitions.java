package dev.idemproxy.core.store;

import dev.idemproxy.core.store.IdempotencyRecord.State;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The record state machine of {@link RecordStore}, as pure functions of (record, now), for
 * backends that serialise access themselves (memory, embedded); the Redis backend runs the same
 * rules in Lua. A null record means "none, or expired": a claim claims it, and the owner's
 * renewal or end writes it back from its {@link OwnedClaim} (see {@link RecordStore}). Stateless.
 */
public final class RecordTransitions {

    private RecordTransitions() {
    }

    /** A claim's outcome: the record to store (null: leave it as it is) and the result to return. */
    public record ClaimTransition(IdempotencyRecord next, ClaimResult result) {
    }

    /** The record, or null when it is null or expired at {@code now}. */
    public static IdempotencyRecord live(IdempotencyRecord record, Instant now) {
        return record == null || !record.expiresAt().isAfter(now) ? null : record;
    }

    public static ClaimTransition claim(IdempotencyRecord current, String fingerprint, String owner, Duration lease,
            ClaimContext ctx, Instant now) {
        if (current == null) {
            return new ClaimTransition(inFlight(owner, ctx.callId(), fingerprint, now, lease, ctx.retention(), now, List.of()),
                    ClaimResult.Claimed.FRESH);
        }
        if (!current.fingerprint().equals(fingerprint)) {
            return new ClaimTransition(null, new ClaimResult.FingerprintMismatch(current.callId()));
        }
        switch (current.state()) {
            case COMPLETED:
                return new ClaimTransition(null, new ClaimResult.Completed(current.response(), current.callId(), current.attempts()));
            case NOT_RETAINED:
                return new ClaimTransition(null, new ClaimResult.NotRetained(current.callId(), current.status(), current.attempts()));
            default:
                if (current.leaseExpiresAt().isAfter(now)) {
                    return new ClaimTransition(null,
                            new ClaimResult.InFlight(current.callId(), current.fingerprint(), current.leaseExpiresAt()));
                }
                // the next owner inherits every call that may have run: the lapsed owner and those it took over from
                List<String> priors = current.priorsThenCaller();
                return new ClaimTransition(inFlight(owner, ctx.callId(), fingerprint, current.createdAt(), lease, ctx.retention(),
                        now, priors), new ClaimResult.Claimed(true, priors));
        }
    }

    /**
     * The renewed record, or null when {@code current} is held by another owner or has ended. An
     * absent {@code current} is {@code claim}'s claim again, as it made it: in flight under the
     * lease and kept for its retention after it.
     */
    public static IdempotencyRecord renew(IdempotencyRecord current, OwnedClaim claim, Duration lease, Instant now) {
        if (current == null) {
            return inFlight(claim.owner(), claim.callId(), claim.fingerprint(), claim.createdAt(), lease, claim.retention(), now,
                    claim.priors());
        }
        if (!heldBy(current, claim.owner())) {
            return null;
        }
        IdempotencyRecord renewed = inFlight(claim.owner(), current.callId(), current.fingerprint(), current.createdAt(), lease,
                Duration.ZERO, now, current.priors());
        // a renewal never shortens how long a lapsed claim is kept (its retention, from the claim)
        return renewed.expiresAt().isAfter(current.expiresAt()) ? renewed
                : new IdempotencyRecord(State.IN_FLIGHT, claim.owner(), current.callId(), current.fingerprint(),
                        renewed.leaseExpiresAt(), current.createdAt(), null, current.expiresAt(), 0, 0, null, current.priors());
    }

    /**
     * The completed record, or null when {@code current} is held by another owner or has ended;
     * an absent {@code current} is completed from {@code claim} (its owner's outcome is the truth
     * about the call, and nobody else holds the key).
     */
    public static IdempotencyRecord complete(IdempotencyRecord current, OwnedClaim claim, StoredResponse response, int attempts,
            Duration ttl, Instant now) {
        return ended(current, claim, State.COMPLETED, response.status(), attempts, ttl, now, response);
    }

    /** As {@link #complete}, for an outcome whose body is not kept. */
    public static IdempotencyRecord notRetained(IdempotencyRecord current, OwnedClaim claim, int status, int attempts,
            Duration ttl, Instant now) {
        return ended(current, claim, State.NOT_RETAINED, status, attempts, ttl, now, null);
    }

    private static IdempotencyRecord ended(IdempotencyRecord current, OwnedClaim claim, State state, int status, int attempts,
            Duration ttl, Instant now, StoredResponse response) {
        if (current == null) {
            return new IdempotencyRecord(state, claim.owner(), claim.callId(), claim.fingerprint(), now, claim.createdAt(), now,
                    now.plus(ttl), attempts, status, response);
        }
        if (!heldBy(current, claim.owner())) {
            return null;
        }
        // The claim's call id: the call whose outcome this is (the claimer's own, or the owner's whose
        // outcome a waiter keeps when its claim took the record from under it).
        return new IdempotencyRecord(state, claim.owner(), claim.callId(), current.fingerprint(), current.leaseExpiresAt(),
                current.createdAt(), now, now.plus(ttl), attempts, status, response);
    }

    /**
     * True when {@code owner} holds {@code current}: it is in flight under that token. A lapsed
     * lease that nobody took over still belongs to its owner.
     */
    public static boolean heldBy(IdempotencyRecord current, String owner) {
        return current != null && current.state() == State.IN_FLIGHT && current.owner().equals(owner);
    }

    private static IdempotencyRecord inFlight(String owner, String callId, String fingerprint, Instant createdAt,
            Duration lease, Duration retention, Instant now, List<String> priors) {
        Instant leaseEnd = now.plus(lease);
        // kept for its retention (at least one more lease length) after it lapses, so that a takeover
        // can be told apart from a fresh claim: a fresh claim would run a call that may have executed
        Duration kept = retention.compareTo(lease) > 0 ? retention : lease;
        return new IdempotencyRecord(State.IN_FLIGHT, owner, callId, fingerprint, leaseEnd, createdAt, null,
                leaseEnd.plus(kept), 0, 0, null, priors);
    }
}
