package dev.idemproxy.core.store;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * A record store that passes every operation to {@link #delegate()}; a decorator (metering, the
 * near-cache, a connection made in the background) overrides only the operations it changes.
 * {@code delegate()} is asked once per operation, so it may change over time (a store that
 * connects later). Thread-safe if the delegate is.
 */
public abstract class ForwardingRecordStore implements RecordStore {

    protected ForwardingRecordStore() {
    }

    /** The store the operations go to; non-null. */
    protected abstract RecordStore delegate();

    @Override
    public CompletionStage<ClaimResult> claim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
        return delegate().claim(key, fingerprint, owner, lease, ctx);
    }

    @Override
    public CompletionStage<Boolean> renew(RecordKey key, OwnedClaim claim, Duration lease) {
        return delegate().renew(key, claim, lease);
    }

    /** Final: the proxy calls the form with a receipt, so a subclass must decorate that one. */
    @Override
    public final CompletionStage<Boolean> complete(RecordKey key, OwnedClaim claim, StoredResponse response, int attempts, Duration ttl) {
        return complete(key, claim, response, attempts, ttl, null);
    }

    @Override
    public CompletionStage<Boolean> complete(RecordKey key, OwnedClaim claim, StoredResponse response, int attempts, Duration ttl,
            ReceiptPut receipt) {
        return delegate().complete(key, claim, response, attempts, ttl, receipt);
    }

    @Override
    public CompletionStage<Boolean> markNotRetained(RecordKey key, OwnedClaim claim, int status, int attempts, Duration ttl) {
        return delegate().markNotRetained(key, claim, status, attempts, ttl);
    }

    @Override
    public CompletionStage<Boolean> release(RecordKey key, String owner) {
        return delegate().release(key, owner);
    }

    @Override
    public void releaseLostClaim(RecordKey key, String owner, ClaimAnswerLostException lost) {
        delegate().releaseLostClaim(key, owner, lost);
    }

    @Override
    public CompletionStage<Boolean> evict(RecordKey key) {
        return delegate().evict(key);
    }

    @Override
    public CompletionStage<Boolean> evict(RecordKey key, String settledOwner) {
        return delegate().evict(key, settledOwner);
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> get(RecordKey key) {
        return delegate().get(key);
    }

    @Override
    public boolean isAvailable() {
        return delegate().isAvailable();
    }

    @Override
    public void close() {
        delegate().close();
    }
}
