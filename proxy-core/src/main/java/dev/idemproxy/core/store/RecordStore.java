package dev.idemproxy.core.store;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The record store SPI: idempotency records, claimed under a lease by an owner token. The receipts,
 * dead letters and task retry counters of the same backend are stores of their own
 * ({@link ReceiptStore}, {@link DeadLetterStore}, {@link TaskBudgetStore}); a backend hands out all
 * four together ({@link Stores}), over one connection or one file. A claim's or a completion's
 * receipt is written by the record store itself, with the record (see {@link #claim} and
 * {@link #complete(RecordKey, OwnedClaim, StoredResponse, int, Duration, ReceiptPut)}).
 *
 * <p><b>Claims, leases and fencing.</b> {@link #claim} atomically creates an {@code IN_FLIGHT}
 * record owned by an opaque owner token under a lease, or reports what holds the key. The owner
 * keeps the key alive with {@link #renew} and ends it with {@link #complete},
 * {@link #markNotRetained} or {@link #release}. Each of those acts only while the record is still
 * {@code IN_FLIGHT} and owned by that token: once a lease lapses and another claim takes the record
 * over, or the record has ended, the old owner's calls return {@code false} and change nothing
 * (fencing). A record that is <em>absent</em> is the exception for renewals and ends: the owner's
 * {@link OwnedClaim} writes it back (a renewal as its claim in flight, an end as its outcome), since
 * nobody else holds the key at that moment and the owner's outcome is the truth about a call that
 * ran; a record gone mid-call (Redis restarted empty, flushed or evicted it; it expired under a
 * stalled owner; an operator evicted it) then turns the next duplicate into a replay rather than a
 * second execution. A release of an absent record does nothing. A lapsed
 * {@code IN_FLIGHT} record is kept after its lease ends for the claim's
 * {@link ClaimContext#retention()} (at least one more lease length) so that a takeover can say so
 * ({@link ClaimResult.Claimed#takeover()}); after that it is gone and a claim is fresh. A renewal
 * never shortens that: the record lives at least until the later of the claim's lease end plus its
 * retention and the renewed lease end plus one lease (Redis keeps it until the renewed lease end
 * plus the retention, since its lease end is the key's expiry less the retention).
 *
 * <p><b>Asynchrony.</b> Every operation returns at once and never blocks its caller (an event
 * loop); stages complete on a store thread, so callers hop back to their own executor. A store that
 * cannot be reached fails the stage with {@link StoreUnavailableException}. Times are kept with
 * millisecond precision.
 *
 * <p>Implementations are thread-safe. {@link #close()} releases the backend (connections, files,
 * threads) that the record store shares with the backend's other stores; operations of all four
 * fail after it.
 */
public interface RecordStore extends AutoCloseable {

    /**
     * Claims {@code key} for {@code owner}, atomically:
     * <ul>
     *   <li>no record: creates one {@code IN_FLIGHT} under the lease → {@link ClaimResult.Claimed};</li>
     *   <li>a record with a different fingerprint, in any state → {@link ClaimResult.FingerprintMismatch};</li>
     *   <li>{@code IN_FLIGHT} under a live lease → {@link ClaimResult.InFlight};</li>
     *   <li>{@code IN_FLIGHT} with a lapsed lease: taken over → {@link ClaimResult.Claimed} with {@code takeover};</li>
     *   <li>{@code COMPLETED} → {@link ClaimResult.Completed}; {@code NOT_RETAINED} → {@link ClaimResult.NotRetained}.</li>
     * </ul>
     *
     * When the claim claims the record ({@link ClaimResult.Claimed}) and {@code ctx} carries a
     * receipt, that receipt is written in the same operation (atomically with the record where the
     * backend can, else right after it); on any other answer it is not written.
     *
     * @param owner a token unique to this claim (e.g. a random UUID), needed by every later write
     * @param lease how long the key is held unless renewed
     */
    CompletionStage<ClaimResult> claim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx);

    /**
     * Extends the lease to now + {@code lease}; false when another owner holds the key or it has
     * ended. An absent record is claimed again for {@code claim}'s owner, in flight under the lease
     * and kept for its retention after it, as its claim made it.
     */
    CompletionStage<Boolean> renew(RecordKey key, OwnedClaim claim, Duration lease);

    /**
     * Ends the call with a response kept for replay for {@code ttl}; false (and nothing written)
     * when another owner holds the key or it has already ended. An absent record is written as
     * completed from {@code claim}. The stage completes only once the record is as durable as the
     * backend makes it (embedded: committed to disk).
     */
    default CompletionStage<Boolean> complete(RecordKey key, OwnedClaim claim, StoredResponse response, int attempts,
            Duration ttl) {
        return complete(key, claim, response, attempts, ttl, null);
    }

    /**
     * As {@link #complete(RecordKey, OwnedClaim, StoredResponse, int, Duration)}, and when it completes the
     * record (true) also writes {@code receipt} (null: none) in the same operation: atomically with
     * the record where the backend can, else right after it. When it answers false, the receipt
     * was not written either.
     */
    CompletionStage<Boolean> complete(RecordKey key, OwnedClaim claim, StoredResponse response, int attempts, Duration ttl,
            ReceiptPut receipt);

    /**
     * Ends the call without keeping its body (it was larger than {@code maxResponseBody}); duplicates
     * get {@link ClaimResult.NotRetained} for {@code ttl}. False, as {@link #complete}, when another
     * owner holds the key or it has ended; an absent record is written from {@code claim}.
     */
    CompletionStage<Boolean> markNotRetained(RecordKey key, OwnedClaim claim, int status, int attempts, Duration ttl);

    /** Deletes the record so the key can be claimed again; false when {@code owner} no longer holds it. */
    CompletionStage<Boolean> release(RecordKey key, String owner);

    /**
     * The caller's claim failed with {@link ClaimAnswerLostException}, and the caller forwarded
     * nothing for it and never will: releases the claim, should it have been written, once the
     * store answers again. Returns at once; the store retries in the background (until the record
     * would have expired anyway). Only {@code owner}'s record goes, as with {@link #release}, so a
     * claim that was never written, or a record someone has since taken over, is left alone. The
     * default does nothing: a store that never throws that exception has nothing to undo.
     */
    default void releaseLostClaim(RecordKey key, String owner, ClaimAnswerLostException lost) {
    }

    /**
     * Deletes the record whatever its state or owner (an operator's {@code DELETE /dlq/{id}?release=true});
     * false when there was none.
     */
    CompletionStage<Boolean> evict(RecordKey key);

    /**
     * As {@link #evict(RecordKey)}, for the record of a call that has settled, whose owner token is
     * {@code settledOwner} (the call whose dead letter an operator released or replays): that
     * call's end or renewal may still be on its way, or still be retried while the store fails (a
     * dead letter is written as its call settles, beside the end), and must not then write the
     * record back as {@link #renew} and {@link #complete} do for a record that vanished, which
     * would undo the release. The Redis store fences that owner for 15 minutes (its writes stop
     * after about ten); the default only evicts: the memory store's writes never fail, so an
     * owner's end is never retried, and the embedded store's is retried only while its disk fails
     * (a window left open).
     */
    default CompletionStage<Boolean> evict(RecordKey key, String settledOwner) {
        return evict(key);
    }

    /** The record, if it exists and has not expired. */
    CompletionStage<Optional<IdempotencyRecord>> get(RecordKey key);

    /**
     * The last known reachability of the backend, for {@code /readyz}; never blocks or does I/O.
     */
    boolean isAvailable();

    /** Releases the backend, for the backend's other stores too; does not throw checked exceptions. */
    @Override
    void close();
}
