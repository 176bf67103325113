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
            return new ClaimTransition(inFlight(owner, ctx.callId(), fingerprint, now, lease, now), ClaimResult.Claimed.FRESH);
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
                return new ClaimTransition(inFlight(owner, ctx.callId(), fingerprint, current.createdAt(), lease, now),
                        new ClaimResult.Claimed(true, current.callId()));
        }
    }

    /** The renewed record, or null when {@code owner} does not hold {@code current}. */
    public static IdempotencyRecord renew(IdempotencyRecord current, String owner, Duration lease, Instant now) {
        if (!heldBy(current, owner)) {
            return null;
        }
        return inFlight(owner, current.callId(), current.fingerprint(), current.createdAt(), lease, now);
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
            Duration lease, Instant now) {
        Instant leaseEnd = now.plus(lease);
        // kept one more lease length after it lapses, so that a takeover can be told apart from a fresh claim
        return new IdempotencyRecord(State.IN_FLIGHT, owner, callId, fingerprint, leaseEnd, createdAt, null,
                leaseEnd.plus(lease), 0, 0, null);
    }
}
