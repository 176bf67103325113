package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.metrics.ProxyMetrics;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Any store, timed: every operation records {@code idemproxy_store_duration_seconds{op}} and,
 * when it fails, {@code idemproxy_store_errors_total{op}}. A synchronous throw is turned into a
 * failed stage, so callers see one failure path. The error counters of every op are registered
 * at zero when this is made. This class is thread-safe if the store is.
 */
public final class MeteredStore implements IdempotencyStore {
    /** The {@code op} tag values, one per kind of store operation (docs/metrics.md lists them). */
    static final List<String> OPS = List.of("claim", "renew", "complete", "release", "evict", "get", "receipt_put",
            "receipt_get", "dlq_add", "dlq_list", "dlq_get", "dlq_delete", "dlq_count", "task_charge", "task_get");

    private final IdempotencyStore store;
    private final ProxyMetrics metrics;

    public MeteredStore(IdempotencyStore store, ProxyMetrics metrics) {
        this.store = requireNonNull(store, "store");
        this.metrics = requireNonNull(metrics, "metrics");
        metrics.registerStoreOps(OPS);
    }

    private <T> CompletionStage<T> timed(String op, Supplier<CompletionStage<T>> call) {
        long start = System.nanoTime();
        CompletionStage<T> stage;
        try {
            stage = call.get();
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        if (stage instanceof CompletableFuture<T> done && done.isDone()) {
            // Answered at once (memory store, near-cache): timed here, no dependent stage to run.
            metrics.storeOp(op, System.nanoTime() - start, done.isCompletedExceptionally());
            return stage;
        }
        return stage.whenComplete((v, err) -> metrics.storeOp(op, System.nanoTime() - start, err != null));
    }

    @Override
    public CompletionStage<ClaimResult> claim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
        return timed("claim", () -> store.claim(key, fingerprint, owner, lease, ctx));
    }

    @Override
    public CompletionStage<Boolean> renew(RecordKey key, OwnedClaim claim, Duration lease) {
        return timed("renew", () -> store.renew(key, claim, lease));
    }

    @Override
    public CompletionStage<Boolean> complete(RecordKey key, OwnedClaim claim, StoredResponse response, int attempts, Duration ttl,
            ReceiptPut receipt) {
        return timed("complete", () -> store.complete(key, claim, response, attempts, ttl, receipt));
    }

    @Override
    public CompletionStage<Boolean> markNotRetained(RecordKey key, OwnedClaim claim, int status, int attempts, Duration ttl) {
        return timed("complete", () -> store.markNotRetained(key, claim, status, attempts, ttl));
    }

    @Override
    public CompletionStage<Boolean> release(RecordKey key, String owner) {
        return timed("release", () -> store.release(key, owner));
    }

    @Override
    public void releaseLostClaim(RecordKey key, String owner, ClaimAnswerLostException lost) {
        store.releaseLostClaim(key, owner, lost);
    }

    @Override
    public CompletionStage<Boolean> evict(RecordKey key) {
        return timed("evict", () -> store.evict(key));
    }

    @Override
    public CompletionStage<Boolean> evict(RecordKey key, String settledOwner) {
        return timed("evict", () -> store.evict(key, settledOwner));
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> get(RecordKey key) {
        return timed("get", () -> store.get(key));
    }

    @Override
    public CompletionStage<Void> putReceipt(Receipt receipt, Duration ttl) {
        return timed("receipt_put", () -> store.putReceipt(receipt, ttl));
    }

    @Override
    public CompletionStage<Optional<Receipt>> receipt(String callId) {
        return timed("receipt_get", () -> store.receipt(callId));
    }

    @Override
    public CompletionStage<List<Receipt>> receiptsByBizId(String bizId, int limit) {
        return timed("receipt_get", () -> store.receiptsByBizId(bizId, limit));
    }

    @Override
    public CompletionStage<Void> addDeadLetter(DeadLetter entry) {
        return timed("dlq_add", () -> store.addDeadLetter(entry));
    }

    @Override
    public CompletionStage<DeadLetterPage> deadLetters(String cursor, int limit) {
        return timed("dlq_list", () -> store.deadLetters(cursor, limit));
    }

    @Override
    public CompletionStage<Optional<DeadLetter>> deadLetter(String id) {
        return timed("dlq_get", () -> store.deadLetter(id));
    }

    @Override
    public CompletionStage<Boolean> deleteDeadLetter(String id) {
        return timed("dlq_delete", () -> store.deleteDeadLetter(id));
    }

    @Override
    public CompletionStage<Long> deadLetterCount() {
        return timed("dlq_count", store::deadLetterCount);
    }

    @Override
    public CompletionStage<Long> chargeTaskRetry(String windowKey, int maxRetries, Duration ttl) {
        return timed("task_charge", () -> store.chargeTaskRetry(windowKey, maxRetries, ttl));
    }

    @Override
    public CompletionStage<Long> taskRetriesUsed(String windowKey) {
        return timed("task_get", () -> store.taskRetriesUsed(windowKey));
    }

    @Override
    public boolean isAvailable() {
        return store.isAvailable();
    }

    @Override
    public void close() {
        store.close();
    }
}
