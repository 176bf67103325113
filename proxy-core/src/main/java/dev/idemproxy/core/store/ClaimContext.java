package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * What a claim records about the call making it, besides the owner token. This class is immutable.
 *
 * @param callId    the claiming call's id ({@code X-Call-Id}); duplicates see it in
 *                  {@link ClaimResult.InFlight#ownerCallId()} and in replays
 * @param retention how long the claim's record is kept once its lease lapses unrenewed (its owner
 *                  died mid-call): as long as the call's outcome would have been kept (the route's
 *                  {@code ttl}, or a derived key's window), so that a duplicate arriving any time
 *                  before then is a takeover of a call that may have executed, never a fresh call
 *                  that runs it again. Never less than one lease.
 * @param receipt   the call's receipt (PROCESSING), written with the record when the claim claims
 *                  it (fresh or as a takeover), and only then; null: none
 */
public record ClaimContext(String callId, Duration retention, ReceiptPut receipt) {

    public ClaimContext {
        requireNonNull(callId, "callId");
        requireNonNull(retention, "retention");
        if (retention.isNegative()) {
            throw new IllegalArgumentException("retention " + retention + " (expected: >= 0)");
        }
    }

    /** A claim that writes no receipt. */
    public ClaimContext(String callId, Duration retention) {
        this(callId, retention, null);
    }

    /** A claim kept only one lease length after it lapses. */
    public ClaimContext(String callId) {
        this(callId, Duration.ZERO);
    }
}
