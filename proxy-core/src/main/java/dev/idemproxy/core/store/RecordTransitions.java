package dev.idemproxy.core.store;

import dev.idemproxy.core.store.IdempotencyRecord.State;
import java.time.Duration;
import java.time.Instant;

/**
 * The record state machine of {@link IdempotencyStore}, as pure functions of (record, now), for
 * backends that serialise access themselves (memory, embedded); the Redis backend runs the same
 * rules in Lua. A null record means "none, or expired". Stateless.
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
            return new ClaimTransition(inFlight(owner, ctx.callId(), fingerprint, now, lease, ctx.retention(), now),
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
                return new ClaimTransition(inFlight(owner, ctx.callId(), fingerprint, current.createdAt(), lease, ctx.retention(), now),
                        new ClaimResult.Claimed(true, current.callId()));
        }
    }

    /** The renewed record, or null when {@code owner} does not hold {@code current}. */
    public static IdempotencyRecord renew(IdempotencyRecord current, String owner, Duration lease, Instant now) {
        if (!heldBy(current, owner)) {
            return null;
        }
        IdempotencyRecord renewed = inFlight(owner, current.callId(), current.fingerprint(), current.createdAt(), lease,
                Duration.ZERO, now);
        // a renewal never shortens how long a lapsed claim is kept (its retention, from the claim)
        return renewed.expiresAt().isAfter(current.expiresAt()) ? renewed
                : new IdempotencyRecord(State.IN_FLIGHT, owner, current.callId(), current.fingerprint(), renewed.leaseExpiresAt(),
                        current.createdAt(), null, current.expiresAt(), 0, 0, null);
    }

    /** The completed record, or null when {@code owner} does not hold {@code current}. */
    public static IdempotencyRecord complete(IdempotencyRecord current, String owner, StoredResponse response, int attempts,
            Duration ttl, Instant now) {
        if (!heldBy(current, owner)) {
            return null;
        }
        return new IdempotencyRecord(State.COMPLETED, owner, current.callId(), current.fingerprint(), current.leaseExpiresAt(),
                current.createdAt(), now, now.plus(ttl), attempts, response.status(), response);
    }

    /** The not-retained record, or null when {@code owner} does not hold {@code current}. */
    public static IdempotencyRecord notRetained(IdempotencyRecord current, String owner, int status, int attempts,
            Duration ttl, Instant now) {
        if (!heldBy(current, owner)) {
            return null;
        }
        return new IdempotencyRecord(State.NOT_RETAINED, owner, current.callId(), current.fingerprint(),
                current.leaseExpiresAt(), current.createdAt(), now, now.plus(ttl), attempts, status, null);
    }

    /**
     * True when {@code owner} holds {@code current}: it is in flight under that token. A lapsed
     * lease that nobody took over still belongs to its owner.
     */
    public static boolean heldBy(IdempotencyRecord current, String owner) {
        return current != null && current.state() == State.IN_FLIGHT && current.owner().equals(owner);
    }

    private static IdempotencyRecord inFlight(String owner, String callId, String fingerprint, Instant createdAt,
            Duration lease, Duration retention, Instant now) {
        Instant leaseEnd = now.plus(lease);
        // kept for its retention (at least one more lease length) after it lapses, so that a takeover
        // can be told apart from a fresh claim: a fresh claim would run a call that may have executed
        Duration kept = retention.compareTo(lease) > 0 ? retention : lease;
        return new IdempotencyRecord(State.IN_FLIGHT, owner, callId, fingerprint, leaseEnd, createdAt, null,
                leaseEnd.plus(kept), 0, 0, null);
    }
}
