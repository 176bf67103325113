package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.RecordTransitions;
import dev.idemproxy.core.store.RecordTransitions.ClaimTransition;
import dev.idemproxy.core.store.StoredResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The embedded backend's idempotency records ({@link EmbeddedStore}): each transition is one frame
 * appended to the log (the record, and the call's receipt with it when there is one), run on the
 * store's executor in group commits ({@link Batcher}).
 *
 * <p><b>Durability.</b> Every operation's frame is written to the log (the operating system has
 * it) before its future completes, so every acknowledged claim, completion, release, renewal and
 * eviction survives a process crash ({@code kill -9}): a claim comes back as an in-flight record
 * whose lease lapses, never as a fresh key. A machine crash keeps what the sync had forced
 * ({@code store.embedded.sync}). Thread-safe.
 */
final class EmbeddedRecords implements RecordStore {
    private final EmbeddedStore backend;
    private final Batcher batcher;
    private final LogState state;
    private final LogWrites writes;
    private final Clock clock;

    EmbeddedRecords(EmbeddedStore backend, Batcher batcher, LogState state, LogWrites writes, Clock clock) {
        this.backend = backend;
        this.batcher = batcher;
        this.state = state;
        this.writes = writes;
        this.clock = clock;
    }

    @Override
    public CompletionStage<ClaimResult> claim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
        return batcher.submit(() -> {
            String id = key.id();
            Instant now = now();
            int tag = LogState.recordTag(id);
            int slot = state.recordSlot(id, tag);
            IdempotencyRecord stored = slot < 0 ? null : state.recordAt(state.records.position(slot), id);
            ClaimTransition t = RecordTransitions.claim(RecordTransitions.live(stored, now), fingerprint, owner, lease, ctx, now);
            if (t.next() != null) {
                ReceiptPut receipt = t.result() instanceof ClaimResult.Claimed ? ctx.receipt() : null;
                write(id, tag, slot, t.next(), receipt, now);
            }
            return t.result();
        });
    }

    @Override
    public CompletionStage<Boolean> renew(RecordKey key, OwnedClaim claim, Duration lease) {
        return update(key, null, (current, now) -> RecordTransitions.renew(current, claim, lease, now));
    }

    @Override
    public CompletionStage<Boolean> complete(RecordKey key, OwnedClaim claim, StoredResponse response, int attempts, Duration ttl,
            ReceiptPut receipt) {
        return update(key, receipt, (current, now) -> RecordTransitions.complete(current, claim, response, attempts, ttl, now));
    }

    @Override
    public CompletionStage<Boolean> markNotRetained(RecordKey key, OwnedClaim claim, int status, int attempts, Duration ttl) {
        return update(key, null, (current, now) -> RecordTransitions.notRetained(current, claim, status, attempts, ttl, now));
    }

    @Override
    public CompletionStage<Boolean> release(RecordKey key, String owner) {
        return batcher.submit(() -> {
            String id = key.id();
            int slot = state.recordSlot(id, LogState.recordTag(id));
            IdempotencyRecord stored = slot < 0 ? null : state.recordAt(state.records.position(slot), id);
            if (!RecordTransitions.heldBy(RecordTransitions.live(stored, now()), owner)) {
                return false;
            }
            delete(id, slot);
            return true;
        });
    }

    @Override
    public CompletionStage<Boolean> evict(RecordKey key) {
        return batcher.submit(() -> {
            String id = key.id();
            int slot = state.recordSlot(id, LogState.recordTag(id));
            if (slot < 0) {
                return false;
            }
            IdempotencyRecord stored = state.recordAt(state.records.position(slot), id);
            delete(id, slot);
            return RecordTransitions.live(stored, now()) != null;
        });
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> get(RecordKey key) {
        return batcher.submit(() -> {
            String id = key.id();
            int slot = state.recordSlot(id, LogState.recordTag(id));
            IdempotencyRecord stored = slot < 0 ? null : state.recordAt(state.records.position(slot), id);
            return Optional.ofNullable(RecordTransitions.live(stored, now()));
        });
    }

    @Override
    public boolean isAvailable() {
        return backend.isAvailable();
    }

    /** Closes the backend, for its other stores too (see {@link EmbeddedStore#close()}). */
    @Override
    public void close() {
        backend.close();
    }

    /** The backend these records are part of; for tests and benchmarks that look inside it. */
    EmbeddedStore backend() {
        return backend;
    }

    private Instant now() {
        return Instant.ofEpochMilli(clock.millis());
    }

    /** Appends {@code next} (with {@code receipt}) and points the indexes at it. */
    private void write(String id, int tag, int slot, IdempotencyRecord next, ReceiptPut receipt, Instant now) {
        LogState.Cached claim = state.cached(id);
        long receiptExpiresAt = receipt == null ? 0 : now.plus(receipt.ttl()).toEpochMilli();
        long position = writes.record(id, next, receipt == null ? null : receipt.receipt(), receiptExpiresAt);
        state.pointRecord(tag, slot, position);
        String receiptCallId = null;
        if (receipt != null) {
            receiptCallId = receipt.receipt().callId();
            int rtag = LogState.receiptTag(receiptCallId);
            long hint = claim != null && receiptCallId.equals(claim.receiptCallId()) ? claim.position() : 0;
            state.pointReceipt(rtag, state.receiptSlot(receiptCallId, rtag, hint), receipt.receipt().bizId(), position);
            state.noteRecent(receiptCallId);
        } else if (claim != null) {
            receiptCallId = claim.receiptCallId();
        }
        state.cache(id, next, position, receiptCallId);
    }

    private void delete(String id, int slot) {
        writes.recordDeleted(id);
        state.dropRecord(slot);
        state.cache(id, null, 0, null);
    }

    private interface Step {
        IdempotencyRecord apply(IdempotencyRecord current, Instant now);
    }

    private CompletionStage<Boolean> update(RecordKey key, ReceiptPut receipt, Step step) {
        return batcher.submit(() -> {
            String id = key.id();
            Instant now = now();
            int tag = LogState.recordTag(id);
            int slot = state.recordSlot(id, tag);
            IdempotencyRecord stored = slot < 0 ? null : state.recordAt(state.records.position(slot), id);
            IdempotencyRecord next = step.apply(RecordTransitions.live(stored, now), now);
            if (next == null) {
                return false;
            }
            write(id, tag, slot, next, receipt, now);
            return true;
        });
    }
}
