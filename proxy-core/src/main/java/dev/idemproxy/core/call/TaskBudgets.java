package dev.idemproxy.core.call;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.retry.LocalTaskBudgets;
import dev.idemproxy.core.retry.TaskBudget;
import dev.idemproxy.core.retry.TaskBudgetDecision;
import dev.idemproxy.core.retry.TaskWindow;
import dev.idemproxy.core.store.TaskBudgetStore;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Where the per-task retry budget (docs/configuration.md {@code tasks.budget}) is counted, as a call sees
 * it: in the store when there is one, so every proxy sharing it spends one budget; in this
 * process's memory ({@link LocalTaskBudgets}) when there is none. Asynchronous, as a store is.
 *
 * <p>The stages never fail. When the store does not answer they complete with {@code null}, "not
 * known", and the call goes on as if the task had retries left: fail open, as Envoy's rate-limit
 * filter does by default; the route's retry budget and {@code maxAttempts} still bound retries.
 * Implementations are thread-safe.
 */
public interface TaskBudgets {

    /** The task's budget now, charging nothing; null when not known. */
    CompletionStage<TaskBudgetDecision> peek(String taskId);

    /**
     * Charges one retry to the task when its budget allows it, atomically across every proxy that
     * counts in the same place. The decision is the one taken before charging: when
     * {@link TaskBudgetDecision#allowed()} the retry was counted. Null when not known (nothing charged).
     */
    CompletionStage<TaskBudgetDecision> tryAcquire(String taskId);

    /** Counters in this process only. */
    static TaskBudgets local(LocalTaskBudgets budgets) {
        requireNonNull(budgets, "budgets");
        return new TaskBudgets() {
            @Override
            public CompletionStage<TaskBudgetDecision> peek(String taskId) {
                return CompletableFuture.completedFuture(budgets.peek(taskId));
            }

            @Override
            public CompletionStage<TaskBudgetDecision> tryAcquire(String taskId) {
                return CompletableFuture.completedFuture(budgets.tryAcquire(taskId));
            }
        };
    }

    /** Counters in a store, one per task and fixed window ({@link TaskWindow#key}). */
    static TaskBudgets stored(TaskBudget budget, TaskBudgetStore store) {
        return new StoredTaskBudgets(budget, store);
    }
}
