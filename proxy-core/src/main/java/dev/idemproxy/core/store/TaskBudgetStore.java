package dev.idemproxy.core.store;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * Per-task retry counters (docs/configuration.md {@code tasks.budget}), one of a backend's four stores
 * ({@link Stores}), so that every proxy sharing the backend spends one budget. A counter lives under a window key (a task id and the index
 * of its fixed window, {@code TaskWindow.key(taskId)}), so a new window starts a new counter; the
 * old one expires. Every operation is asynchronous and never blocks its caller; a failure
 * completes the stage with {@link StoreUnavailableException}. Implementations are thread-safe.
 */
public interface TaskBudgetStore {

    /**
     * Charges one retry to the counter, atomically, when it is below {@code maxRetries}.
     *
     * @param ttl how long the counter is kept from now (it is set again on every charge)
     * @return the count after charging (1 for the first retry), or {@code -1} when the budget was
     *         already spent ({@code >= maxRetries}) and nothing was charged
     */
    CompletionStage<Long> chargeTaskRetry(String windowKey, int maxRetries, Duration ttl);

    /** Retries charged to the counter so far; 0 when it does not exist or has expired. */
    CompletionStage<Long> taskRetriesUsed(String windowKey);
}
