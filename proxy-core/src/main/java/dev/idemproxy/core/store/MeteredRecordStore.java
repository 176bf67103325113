package dev.idemproxy.core.store;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * A record store, timed ({@link MeteredStores}): ops {@code claim}, {@code renew}, {@code complete}
 * (a completion and a not-retained end alike), {@code release}, {@code evict} and {@code get}.
 * Thread-safe if the store is.
 */
final class MeteredRecordStore extends ForwardingRecordStore {
    private final RecordStore store;
    private final StoreMeter meter;

    MeteredRecordStore(RecordStore store, StoreMeter meter) {
        this.store = store;
        this.meter = meter;
    }

    @Override
    protected RecordStore delegate() {
        return store;
    }

    @Override
    public CompletionStage<ClaimResult> claim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
        return meter.timed("claim", () -> store.claim(key, fingerprint, owner, lease, ctx));
    }

    @Override
    public CompletionStage<Boolean> renew(RecordKey key, OwnedClaim claim, Duration lease) {
        return meter.timed("renew", () -> store.renew(key, claim, lease));
    }

    @Override
    public CompletionStage<Boolean> complete(RecordKey key, OwnedClaim claim, StoredResponse response, int attempts, Duration ttl,
            ReceiptPut receipt) {
        return meter.timed("complete", () -> store.complete(key, claim, response, attempts, ttl, receipt));
    }

    @Override
    public CompletionStage<Boolean> markNotRetained(RecordKey key, OwnedClaim claim, int status, int attempts, Duration ttl) {
        return meter.timed("complete", () -> store.markNotRetained(key, claim, status, attempts, ttl));
    }

    @Override
    public CompletionStage<Boolean> release(RecordKey key, String owner) {
        return meter.timed("release", () -> store.release(key, owner));
    }

    @Override
    public CompletionStage<Boolean> evict(RecordKey key) {
        return meter.timed("evict", () -> store.evict(key));
    }

    @Override
    public CompletionStage<Boolean> evict(RecordKey key, String settledOwner) {
        return meter.timed("evict", () -> store.evict(key, settledOwner));
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> get(RecordKey key) {
        return meter.timed("get", () -> store.get(key));
    }
}
