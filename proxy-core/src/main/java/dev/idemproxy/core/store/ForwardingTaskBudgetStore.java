package dev.idemproxy.core.store;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * A task budget store that passes every operation to {@link #delegate()}, asked once per
 * operation; a decorator overrides only what it changes. Thread-safe if the delegate is.
 */
public abstract class ForwardingTaskBudgetStore implements TaskBudgetStore {

    protected ForwardingTaskBudgetStore() {
    }

    /** The store the operations go to; non-null. */
    protected abstract TaskBudgetStore delegate();

    @Override
    public CompletionStage<Long> chargeTaskRetry(String windowKey, int maxRetries, Duration ttl) {
        return delegate().chargeTaskRetry(windowKey, maxRetries, ttl);
    }

    @Override
    public CompletionStage<Long> taskRetriesUsed(String windowKey) {
        return delegate().taskRetriesUsed(windowKey);
    }
}
