package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * A store that passes every operation to another; a decorator overrides only the operations it
 * changes. Thread-safe if the delegate is.
 */
public abstract class ForwardingStore implements IdempotencyStore {
    protected final IdempotencyStore delegate;

    protected ForwardingStore(IdempotencyStore delegate) {
        this.delegate = requireNonNull(delegate, "delegate");
    }

    @Override
    public CompletionStage<ClaimResult> claim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
        return delegate.claim(key, fingerprint, owner, lease, ctx);
    }

    @Override
    public CompletionStage<Boolean> renew(RecordKey key, OwnedClaim claim, Duration lease) {
        return delegate.renew(key, claim, lease);
    }

    /** Final: the proxy calls the form with a receipt, so a subclass must decorate that one. */
    @Override
    public final CompletionStage<Boolean> complete(RecordKey key, OwnedClaim claim, StoredResponse response, int attempts, Duration ttl) {
        return complete(key, claim, response, attempts, ttl, null);
    }

    @Override
    public CompletionStage<Boolean> complete(RecordKey key, OwnedClaim claim, StoredResponse response, int attempts, Duration ttl,
            ReceiptPut receipt) {
        return delegate.complete(key, claim, response, attempts, ttl, receipt);
    }

    @Override
    public CompletionStage<Boolean> markNotRetained(RecordKey key, OwnedClaim claim, int status, int attempts, Duration ttl) {
        return delegate.markNotRetained(key, claim, status, attempts, ttl);
    }

    @Override
    public CompletionStage<Boolean> release(RecordKey key, String owner) {
        return delegate.release(key, owner);
    }

    @Override
    public void releaseLostClaim(RecordKey key, String owner, ClaimAnswerLostException lost) {
        delegate.releaseLostClaim(key, owner, lost);
    }

    @Override
    public CompletionStage<Boolean> evict(RecordKey key) {
        return delegate.evict(key);
    }

    @Override
    public CompletionStage<Boolean> evict(RecordKey key, String settledOwner) {
        return delegate.evict(key, settledOwner);
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> get(RecordKey key) {
        return delegate.get(key);
    }

    @Override
    public boolean isAvailable() {
        return delegate.isAvailable();
    }

    @Override
    public CompletionStage<Void> putReceipt(Receipt receipt, Duration ttl) {
        return delegate.putReceipt(receipt, ttl);
    }

    @Override
    public CompletionStage<Optional<Receipt>> receipt(String callId) {
        return delegate.receipt(callId);
    }

    @Override
    public CompletionStage<List<Receipt>> receiptsByBizId(String bizId, int limit) {
        return delegate.receiptsByBizId(bizId, limit);
    }

    @Override
    public CompletionStage<Void> addDeadLetter(DeadLetter entry) {
        return delegate.addDeadLetter(entry);
    }

    @Override
    public CompletionStage<DeadLetterPage> deadLetters(String cursor, int limit) {
        return delegate.deadLetters(cursor, limit);
    }

    @Override
    public CompletionStage<Optional<DeadLetter>> deadLetter(String id) {
        return delegate.deadLetter(id);
    }

    @Override
    public CompletionStage<Boolean> deleteDeadLetter(String id) {
        return delegate.deleteDeadLetter(id);
    }

    @Override
    public CompletionStage<Long> deadLetterCount() {
        return delegate.deadLetterCount();
    }

    @Override
    public CompletionStage<Long> chargeTaskRetry(String windowKey, int maxRetries, Duration ttl) {
        return delegate.chargeTaskRetry(windowKey, maxRetries, ttl);
    }

    @Override
    public CompletionStage<Long> taskRetriesUsed(String windowKey) {
        return delegate.taskRetriesUsed(windowKey);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
