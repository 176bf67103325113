package dev.idemproxy.core.store.memory;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
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
import dev.idemproxy.core.store.WeightBudget;
import dev.idemproxy.core.util.Mistakes;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The memory backend's idempotency records ({@link MemoryStore}): a Caffeine cache by record id,
 * ended records weighed within their share of the heap, records in flight weightless (never
 * evicted for size). A claim's or a completion's receipt goes to the backend's
 * {@link MemoryReceipts} in the same operation. Thread-safe: atomic per key.
 */
final class MemoryRecords implements RecordStore {
    private final MemoryStore backend;
    private final MemoryReceipts receipts;
    private final Cache<String, IdempotencyRecord> records;
    /** Mistakes planted for the simulation; none in production. */
    private final Mistakes mistakes;

    MemoryRecords(MemoryStore backend, WeightBudget share, MemoryReceipts receipts, Mistakes mistakes) {
        this.mistakes = mistakes;
        this.backend = backend;
        this.receipts = receipts;
        this.records = Caffeine.newBuilder()
                .maximumWeight(share.capacity())
                // in flight: weightless, so never evicted for size (its duplicate would execute)
                .weigher((String id, IdempotencyRecord r) ->
                        r.state() == IdempotencyRecord.State.IN_FLIGHT ? 0 : share.weight(MemoryFootprint.of(id, r)))
                .ticker(backend.ticker())
                .expireAfter(new TimedExpiry<String, IdempotencyRecord>(IdempotencyRecord::expiresAt))
                .executor(Runnable::run)
                .build();
    }

    @Override
    public CompletionStage<ClaimResult> claim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
        return backend.run(() -> {
            // A duplicate of a call that ended (or is in flight) changes nothing: answered from a
            // read, without the write that compute costs. What the read saw was the record at that
            // moment; any claim that would change it goes through compute, atomically.
            IdempotencyRecord seen = records.getIfPresent(key.id());
            if (seen != null) {
                Instant now = backend.now();
                IdempotencyRecord live = RecordTransitions.live(seen, now);
                if (live != null) {
                    ClaimTransition t = RecordTransitions.claim(live, fingerprint, owner, lease, ctx, now);
                    if (t.next() == null) {
                        return t.result();
                    }
                }
            } else {
                // None seen: a new key's claim is a plain insert (compute's own objects were a
                // tenth of a new call's allocation). Whatever got in first, compute decides below.
                ClaimTransition t = RecordTransitions.claim(null, fingerprint, owner, lease, ctx, backend.now());
                if (records.asMap().putIfAbsent(key.id(), t.next()) == null) {
                    return claimed(t.result(), ctx);
                }
            }
            AtomicReference<ClaimResult> result = new AtomicReference<>();
            records.asMap().compute(key.id(), (k, current) -> {
                Instant now = backend.now();
                IdempotencyRecord live = RecordTransitions.live(current, now);
                ClaimTransition t = RecordTransitions.claim(live, fingerprint, owner, lease, ctx, now);
                result.set(t.result());
                return t.next() != null ? t.next() : live;
            });
            return claimed(result.get(), ctx);
        });
    }

    /** {@code result}, with the claim's receipt written when it claimed. */
    private ClaimResult claimed(ClaimResult result, ClaimContext ctx) {
        if (ctx.receipt() != null && result instanceof ClaimResult.Claimed) {
            receipts.write(ctx.receipt().receipt(), ctx.receipt().ttl());
        }
        return result;
    }

    @Override
    public CompletionStage<Boolean> renew(RecordKey key, OwnedClaim claim, Duration lease) {
        return update(key, (current, now) -> RecordTransitions.renew(current, claim, lease, now));
    }

    @Override
    public CompletionStage<Boolean> complete(RecordKey key, OwnedClaim claim, StoredResponse response, int attempts, Duration ttl,
            ReceiptPut receipt) {
        boolean unfenced = mistakes.has(Mistakes.Mistake.SKIP_FENCING_ON_COMPLETE);  // planted only: as if the record were absent
        return backend.run(() -> {
            boolean done = apply(key, (current, now) -> RecordTransitions.complete(unfenced ? null : current, claim, response,
                    attempts, ttl, now));
            if (done && receipt != null) {
                receipts.write(receipt.receipt(), receipt.ttl());
            }
            return done;
        });
    }

    @Override
    public CompletionStage<Boolean> markNotRetained(RecordKey key, OwnedClaim claim, int status, int attempts, Duration ttl) {
        return update(key, (current, now) -> RecordTransitions.notRetained(current, claim, status, attempts, ttl, now));
    }

    @Override
    public CompletionStage<Boolean> release(RecordKey key, String owner) {
        return backend.run(() -> {
            boolean[] released = {false};
            records.asMap().computeIfPresent(key.id(), (k, current) -> {
                IdempotencyRecord live = RecordTransitions.live(current, backend.now());
                released[0] = RecordTransitions.heldBy(live, owner);
                return released[0] || live == null ? null : current;
            });
            return released[0];
        });
    }

    @Override
    public CompletionStage<Boolean> evict(RecordKey key) {
        return backend.run(() -> RecordTransitions.live(records.asMap().remove(key.id()), backend.now()) != null);
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> get(RecordKey key) {
        return backend.run(() -> Optional.ofNullable(RecordTransitions.live(records.getIfPresent(key.id()), backend.now())));
    }

    @Override
    public boolean isAvailable() {
        return backend.isAvailable();
    }

    /** Closes the backend, for its other stores too. */
    @Override
    public void close() {
        backend.close();
    }

    private interface Step {
        IdempotencyRecord apply(IdempotencyRecord current, Instant now);
    }

    /** Applies an owner-checked step (to an absent record too: see {@link RecordTransitions}); true when it produced a new record. */
    private CompletionStage<Boolean> update(RecordKey key, Step step) {
        return backend.run(() -> apply(key, step));
    }

    /**
     * {@link #update}'s step, now: applied to the record as read, and written only if that is
     * still the record (else read and applied again), so each write follows from the record it
     * replaces as under compute, without compute's own objects (a fifth of the store's
     * allocation per call). An expired record reads as none, as Caffeine's expiry and
     * {@link RecordTransitions#live} agree on the same clock.
     */
    private boolean apply(RecordKey key, Step step) {
        String id = key.id();
        for (;;) {
            IdempotencyRecord current = records.getIfPresent(id);
            Instant now = backend.now();
            IdempotencyRecord next = step.apply(RecordTransitions.live(current, now), now);
            if (next == null) {
                return false;
            }
            if (current == null ? records.asMap().putIfAbsent(id, next) == null : records.asMap().replace(id, current, next)) {
                return true;
            }
        }
    }

    void clear() {
        records.invalidateAll();
    }

    void cleanUp() {
        records.cleanUp();
    }

    long count() {
        return records.estimatedSize();
    }
}
