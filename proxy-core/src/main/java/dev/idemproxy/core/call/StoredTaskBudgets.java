package dev.idemproxy.core.call;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.retry.TaskBudget;
import dev.idemproxy.core.retry.TaskBudgetDecision;
import dev.idemproxy.core.retry.TaskWindow;
import dev.idemproxy.core.store.TaskBudgetStore;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link TaskBudgets} counted in a {@link TaskBudgetStore}. Immutable; thread-safe. */
final class StoredTaskBudgets implements TaskBudgets {
    private static final Logger LOG = LoggerFactory.getLogger(TaskBudgets.class);

    private final TaskBudget budget;
    private final TaskBudgetStore store;

    StoredTaskBudgets(TaskBudget budget, TaskBudgetStore store) {
        this.budget = requireNonNull(budget, "budget");
        this.store = requireNonNull(store, "store");
    }

    @Override
    public CompletionStage<TaskBudgetDecision> peek(String taskId) {
        TaskWindow window = budget.currentWindow();
        int max = budget.policy().maxRetries();
        return store.taskRetriesUsed(window.key(taskId))
                .handle((used, err) -> err != null ? unknown("read", err) : TaskBudgetDecision.of(used, max, window));
    }

    @Override
    public CompletionStage<TaskBudgetDecision> tryAcquire(String taskId) {
        TaskWindow window = budget.currentWindow();
        int max = budget.policy().maxRetries();
        return store.chargeTaskRetry(window.key(taskId), max, budget.counterTtl(window)).handle((after, err) -> {
            if (err != null) {
                return unknown("charge", err);
            }
            // -1: spent (possibly by another proxy since the budget was read); else the count after this charge
            return after < 0 ? TaskBudgetDecision.of(max, max, window) : TaskBudgetDecision.of(after - 1, max, window);
        });
    }

    private static TaskBudgetDecision unknown(String what, Throwable err) {
        LOG.warn("could not {} a task retry budget in the store; going on as if it allowed retries: {}", what, err.toString());
        return null;
    }
}
