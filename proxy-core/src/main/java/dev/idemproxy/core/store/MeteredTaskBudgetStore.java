package dev.idemproxy.core.store;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * A task budget store, timed ({@link MeteredStores}): ops {@code task_charge} and
 * {@code task_get}. Thread-safe if the store is.
 */
final class MeteredTaskBudgetStore extends ForwardingTaskBudgetStore {
    private final TaskBudgetStore store;
    private final StoreMeter meter;

    MeteredTaskBudgetStore(TaskBudgetStore store, StoreMeter meter) {
        this.store = store;
        this.meter = meter;
    }

    @Override
    protected TaskBudgetStore delegate() {
        return store;
    }

    @Override
    public CompletionStage<Long> chargeTaskRetry(String windowKey, int maxRetries, Duration ttl) {
        return meter.timed("task_charge", () -> store.chargeTaskRetry(windowKey, maxRetries, ttl));
    }

    @Override
    public CompletionStage<Long> taskRetriesUsed(String windowKey) {
        return meter.timed("task_get", () -> store.taskRetriesUsed(windowKey));
    }
}
