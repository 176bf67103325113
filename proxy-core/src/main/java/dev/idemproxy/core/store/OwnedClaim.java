package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A claim as its owner holds it, for the owner's later writes ({@link RecordStore#renew},
 * {@link RecordStore#complete}, {@link RecordStore#markNotRetained}): the owner token
 * that fences them, and what the claim wrote, so that a write finding the record gone (a Redis
 * restarted empty, flushed or evicting; a record expired under a stalled owner; an operator's
 * evict) can write it back as it was. This class is immutable.
 *
 * @param owner       the claim's owner token
 * @param callId      the claiming call's id, as in its {@link ClaimContext#callId()}
 * @param fingerprint the fingerprint it claimed with
 * @param createdAt   when the call started: a written-back record's creation time (it only informs)
 * @param retention   as the claim's {@link ClaimContext#retention()}: how long a claim written back
 *                    by a renewal is kept after its lease lapses
 * @param priors      the calls the claim took the record over from ({@link ClaimResult.Claimed#priors()}),
 *                    kept in a record a renewal writes back, so that a later takeover still checks them
 */
public record OwnedClaim(String owner, String callId, String fingerprint, Instant createdAt, Duration retention,
        List<String> priors) {

    public OwnedClaim {
        requireNonNull(owner, "owner");
        requireNonNull(callId, "callId");
        requireNonNull(fingerprint, "fingerprint");
        requireNonNull(createdAt, "createdAt");
        requireNonNull(retention, "retention");
        if (retention.isNegative()) {
            throw new IllegalArgumentException("retention " + retention + " (expected: >= 0)");
        }
        priors = List.copyOf(priors);
    }

    /** A claim made afresh: no priors. */
    public OwnedClaim(String owner, String callId, String fingerprint, Instant createdAt, Duration retention) {
        this(owner, callId, fingerprint, createdAt, retention, List.of());
    }

    /** The claim {@code owner} made with {@code fingerprint} and {@code ctx}, for a call that started at {@code createdAt}. */
    public static OwnedClaim of(String owner, String fingerprint, ClaimContext ctx, Instant createdAt) {
        return new OwnedClaim(owner, ctx.callId(), fingerprint, createdAt, ctx.retention());
    }
}
