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
import dev.idemproxy.core.store.StoreCodec;
import dev.idemproxy.core.store.StoredResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.h2.mvstore.MVMap;

/**
 * The embedded backend's idempotency records ({@link EmbeddedStore}): record id → encoded record,
 * every transition run on the store thread ({@link StoreThread}).
 *
 * <p><b>Durability.</b> A claim that creates or takes over a record, {@link #complete},
 * {@link #markNotRetained} and {@link #release} are committed to the file before their future
 * completes, so a claimed key or an ended call survives a process crash ({@code kill -9}) once
 * acknowledged: a claim comes back as an in-flight record whose lease lapses, never as a fresh
 * key. A receipt written with a claim or a completion ({@link EmbeddedReceipts}) shares its
 * commit. Renewals and evictions are committed by MVStore's background writer within about a
 * second (or by the next group commit); losing one in a crash only costs a lease extension or an
 * eviction to redo. A commit reaches the OS page cache; {@link EmbeddedFile} forces it to disk
 * within a second. Thread-safe.
 */
final class EmbeddedRecords implements RecordStore {
    private final EmbeddedStore backend;
    private final StoreThread thread;
    private final MVMap<String, byte[]> records;
    private final EmbeddedReceipts receipts;
    private final Clock clock;

    EmbeddedRecords(EmbeddedStore backend, StoreThread thread, MVMap<String, byte[]> records, EmbeddedReceipts receipts,
            Clock clock) {
        this.backend = backend;
        this.thread = thread;
        this.records = records;
        this.receipts = receipts;
        this.clock = clock;
    }

    @Override
    public CompletionStage<ClaimResult> claim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
        return thread.submit(() -> {
            String id = key.id();
            Instant now = now();
            IdempotencyRecord stored = read(id);
            ClaimTransition t = RecordTransitions.claim(RecordTransitions.live(stored, now), fingerprint, owner, lease, ctx, now);
            if (t.next() != null) {
                write(id, t.next());
                // A claim is durable before its call is forwarded: after a crash it comes back as
                // an in-flight record whose lease lapses, never as a fresh key that would run again.
                thread.commitBeforeAnswering();
            }
            if (ctx.receipt() != null && t.result() instanceof ClaimResult.Claimed) {
                receipts.put(ctx.receipt().receipt(), now.plus(ctx.receipt().ttl()));
            }
            return t.result();
        });
    }

    @Override
    public CompletionStage<Boolean> renew(RecordKey key, OwnedClaim claim, Duration lease) {
        return update(key, false, (current, now) -> RecordTransitions.renew(current, claim, lease, now));
    }

    @Override
    public CompletionStage<Boolean> complete(RecordKey key, OwnedClaim claim, StoredResponse response, int attempts, Duration ttl,
            ReceiptPut receipt) {
        return update(key, true, (current, now) -> {
            IdempotencyRecord next = RecordTransitions.complete(current, claim, response, attempts, ttl, now);
            if (next != null && receipt != null) {
                receipts.put(receipt.receipt(), now.plus(receipt.ttl()));  // in the same commit as the record
            }
            return next;
        });
    }

    @Override
    public CompletionStage<Boolean> markNotRetained(RecordKey key, OwnedClaim claim, int status, int attempts, Duration ttl) {
        return update(key, true, (current, now) -> RecordTransitions.notRetained(current, claim, status, attempts, ttl, now));
    }

    @Override
    public CompletionStage<Boolean> release(RecordKey key, String owner) {
        return thread.submit(() -> {
            String id = key.id();
            IdempotencyRecord stored = read(id);
            if (!RecordTransitions.heldBy(RecordTransitions.live(stored, now()), owner)) {
                return false;
            }
            write(id, null);
            thread.commitBeforeAnswering();
            return true;
        });
    }

    @Override
    public CompletionStage<Boolean> evict(RecordKey key) {
        return thread.submit(() -> {
            String id = key.id();
            IdempotencyRecord stored = read(id);
            write(id, null);
            return RecordTransitions.live(stored, now()) != null;
        });
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> get(RecordKey key) {
        return thread.submit(() -> Optional.ofNullable(RecordTransitions.live(read(key.id()), now())));
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

    private IdempotencyRecord read(String id) {
        byte[] value = records.get(id);
        return value == null ? null : StoreCodec.decodeRecord(value);
    }

    /** Replaces the record under {@code id} by {@code next} (null: delete). */
    private void write(String id, IdempotencyRecord next) {
        if (next == null) {
            records.remove(id);
        } else {
            records.put(id, StoreCodec.encodeRecord(next));
        }
    }

    private interface Step {
        IdempotencyRecord apply(IdempotencyRecord current, Instant now);
    }

    private CompletionStage<Boolean> update(RecordKey key, boolean commit, Step step) {
        return thread.submit(() -> {
            String id = key.id();
            Instant now = now();
            IdempotencyRecord stored = read(id);
            IdempotencyRecord next = step.apply(RecordTransitions.live(stored, now), now);
            if (next == null) {
                return false;
            }
            write(id, next);
            if (commit) {
                thread.commitBeforeAnswering();
            }
            return true;
        });
    }
}
