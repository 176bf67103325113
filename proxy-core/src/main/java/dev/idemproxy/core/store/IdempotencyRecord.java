package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;

/**
 * One idempotency record as the store holds it. This class is immutable.
 *
 * @param state          where the call stands
 * @param owner          the owner token of the claim that made or last took over this record
 * @param callId         the id of that call
 * @param fingerprint    what a reuse of the key must match
 * @param leaseExpiresAt until when the owner holds the key (meaningful while {@link State#IN_FLIGHT})
 * @param createdAt      when the key was first claimed
 * @param completedAt    when the call ended; null while in flight
 * @param expiresAt      when the record disappears from the store
 * @param attempts       upstream attempts made (0 while in flight, as claims do not count attempts)
 * @param status         the final HTTP status; 0 while in flight
 * @param response       the stored response, only when {@link State#COMPLETED}; null otherwise
 * @param priors         while {@link State#IN_FLIGHT}: the calls whose lapsed claims this record was
 *                       taken over from, oldest first, each of which may have executed (empty for a
 *                       record claimed afresh, and once it ends). A takeover checks every one of
 *                       them before it may execute: the last alone is not enough, as it may itself
 *                       have taken over from one that ran and failed to record that.
 */
public record IdempotencyRecord(
        State state,
        String owner,
        String callId,
        String fingerprint,
        Instant leaseExpiresAt,
        Instant createdAt,
        Instant completedAt,
        Instant expiresAt,
        int attempts,
        int status,
        StoredResponse response,
        List<String> priors) {

    /** The life of a record: claimed (in flight), then completed or completed without its body. */
    public enum State {
        /** Claimed by {@code owner}; the lease says until when. */
        IN_FLIGHT,
        /** Ended with a response that is kept for replay. */
        COMPLETED,
        /** Ended, but the response was too large to keep: duplicates get {@code result-not-retained}. */
        NOT_RETAINED
    }

    public IdempotencyRecord {
        requireNonNull(state, "state");
        requireNonNull(owner, "owner");
        requireNonNull(callId, "callId");
        requireNonNull(fingerprint, "fingerprint");
        requireNonNull(leaseExpiresAt, "leaseExpiresAt");
        requireNonNull(createdAt, "createdAt");
        requireNonNull(expiresAt, "expiresAt");
        if (state == State.COMPLETED) {
            requireNonNull(response, "response");
        }
        priors = List.copyOf(priors);
    }

    /** A record with no priors: claimed afresh, or ended. */
    public IdempotencyRecord(State state, String owner, String callId, String fingerprint, Instant leaseExpiresAt,
            Instant createdAt, Instant completedAt, Instant expiresAt, int attempts, int status, StoredResponse response) {
        this(state, owner, callId, fingerprint, leaseExpiresAt, createdAt, completedAt, expiresAt, attempts, status, response,
                List.of());
    }

    /** {@code priors} and then {@code callId}, the calls a takeover of this record must check (a repeat of the last left out). */
    public List<String> priorsThenCaller() {
        return Priors.append(priors, callId);
    }
}
