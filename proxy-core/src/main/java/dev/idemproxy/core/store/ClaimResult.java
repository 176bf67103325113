package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;

/**
 * What {@link RecordStore#claim} found. Expected outcomes are values, not exceptions; the
 * engine maps them: {@link Claimed} → forward, {@link InFlight} → wait or 409 {@code key-in-flight},
 * {@link Completed} → replay, {@link NotRetained} → 409 {@code result-not-retained},
 * {@link FingerprintMismatch} → 422 {@code key-reused-with-different-payload}.
 * All implementations are immutable.
 */
public sealed interface ClaimResult {

    /**
     * The caller now owns the key under the lease it asked for.
     *
     * @param takeover true when an earlier owner's lease had lapsed and this claim took the record
     *                 over (that call may or may not have executed)
     * @param priors   on a takeover, every call that held the record before and may have executed,
     *                 oldest first, the earlier owner last (it carries the calls it had taken the
     *                 record over from); empty otherwise
     */
    record Claimed(boolean takeover, List<String> priors) implements ClaimResult {
        public static final Claimed FRESH = new Claimed(false, List.of());

        public Claimed {
            priors = List.copyOf(priors);
            if (takeover == priors.isEmpty()) {
                throw new IllegalArgumentException("a takeover names the calls it took over from, a fresh claim none: "
                        + takeover + ", " + priors);
            }
        }

        /** A takeover of the claim of {@code previousCallId}, which had taken over from none. */
        public static Claimed takeover(String previousCallId) {
            return new Claimed(true, List.of(previousCallId));
        }

        /** On a takeover, the call id of the earlier owner; null otherwise. */
        public String previousCallId() {
            return priors.isEmpty() ? null : priors.get(priors.size() - 1);
        }
    }

    /**
     * Another call holds the key under a live lease, and the fingerprints match.
     *
     * @param ownerCallId    the holding call's id
     * @param fingerprint    the fingerprint it was claimed with
     * @param leaseExpiresAt until when its lease runs, unless renewed
     */
    record InFlight(String ownerCallId, String fingerprint, Instant leaseExpiresAt) implements ClaimResult {
        public InFlight {
            requireNonNull(ownerCallId, "ownerCallId");
            requireNonNull(fingerprint, "fingerprint");
            requireNonNull(leaseExpiresAt, "leaseExpiresAt");
        }
    }

    /**
     * The call ended and its response is stored; replay it.
     *
     * @param response the stored response
     * @param callId   the original call's id (replays carry it as {@code X-Call-Id})
     * @param attempts the original call's upstream attempts ({@code X-Attempts})
     */
    record Completed(StoredResponse response, String callId, int attempts) implements ClaimResult {
        public Completed {
            requireNonNull(response, "response");
            requireNonNull(callId, "callId");
        }
    }

    /**
     * The call ended but its response was too large to keep.
     *
     * @param callId   the original call's id
     * @param status   the original final status
     * @param attempts the original call's upstream attempts
     */
    record NotRetained(String callId, int status, int attempts) implements ClaimResult {
        public NotRetained {
            requireNonNull(callId, "callId");
        }
    }

    /**
     * The key is in use (in flight or ended) with a different fingerprint. Checked before anything
     * else, so it wins over in-flight, completed, not-retained and lapsed leases alike.
     *
     * @param callId the call id that holds the key
     */
    record FingerprintMismatch(String callId) implements ClaimResult {
        public FingerprintMismatch {
            requireNonNull(callId, "callId");
        }
    }
}
