package dev.idemproxy.core.store.redis;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.DeadLetterPage;
import dev.idemproxy.core.store.DeadLetterStore;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.store.ReceiptStore;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.store.TaskBudgetStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The four stores of a Redis backend that has not connected yet ({@link ConnectingRedisStore}):
 * every operation fails at once with the exception {@code why} gives, nothing is available, and a
 * lost claim has nothing to undo (none was made). Closing it does nothing: the connector owns what
 * there is. Thread-safe.
 */
final class NotConnected implements RecordStore, ReceiptStore, DeadLetterStore, TaskBudgetStore {
    private final Supplier<StoreUnavailableException> why;

    private NotConnected(Supplier<StoreUnavailableException> why) {
        this.why = why;
    }

    /** The four stores, failing with what {@code why} says at the time of each operation. */
    static Stores stores(Supplier<StoreUnavailableException> why) {
        NotConnected s = new NotConnected(why);
        return new Stores(s, s, s, s);
    }

    private <T> CompletionStage<T> failed() {
        return CompletableFuture.failedFuture(why.get());
    }

    @Override
    public CompletionStage<ClaimResult> claim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
        return failed();
    }

    @Override
    public CompletionStage<Boolean> renew(RecordKey key, OwnedClaim claim, Duration lease) {
        return failed();
    }

    @Override
    public CompletionStage<Boolean> complete(RecordKey key, OwnedClaim claim, StoredResponse response, int attempts, Duration ttl,
            ReceiptPut receipt) {
        return failed();
    }

    @Override
    public CompletionStage<Boolean> markNotRetained(RecordKey key, OwnedClaim claim, int status, int attempts, Duration ttl) {
        return failed();
    }

    @Override
    public CompletionStage<Boolean> release(RecordKey key, String owner) {
        return failed();
    }

    @Override
    public CompletionStage<Boolean> evict(RecordKey key) {
        return failed();
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> get(RecordKey key) {
        return failed();
    }

    @Override
    public boolean isAvailable() {
        return false;
    }

    @Override
    public void close() {
    }

    @Override
    public CompletionStage<Void> putReceipt(Receipt receipt, Duration ttl) {
        return failed();
    }

    @Override
    public CompletionStage<Optional<Receipt>> receipt(String callId) {
        return failed();
    }

    @Override
    public CompletionStage<List<Receipt>> receiptsByBizId(String bizId, int limit) {
        return failed();
    }

    @Override
    public CompletionStage<dev.idemproxy.core.store.CallPage> recentCalls(dev.idemproxy.core.store.CallQuery query) {
        return failed();
    }

    @Override
    public CompletionStage<Void> addDeadLetter(DeadLetter entry) {
        return failed();
    }

    @Override
    public CompletionStage<DeadLetterPage> deadLetters(String cursor, int limit) {
        return failed();
    }

    @Override
    public CompletionStage<Optional<DeadLetter>> deadLetter(String id) {
        return failed();
    }

    @Override
    public CompletionStage<Boolean> deleteDeadLetter(String id) {
        return failed();
    }

    @Override
    public CompletionStage<Long> deadLetterCount() {
        return failed();
    }

    @Override
    public CompletionStage<Long> chargeTaskRetry(String windowKey, int maxRetries, Duration ttl) {
        return failed();
    }

    @Override
    public CompletionStage<Long> taskRetriesUsed(String windowKey) {
        return failed();
    }
}
