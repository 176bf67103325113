package dev.idemproxy.core.retry;

/**
 * The two budgets' answers, asked by {@link RetryRules} only once everything else allows a retry,
 * task first. Keeps the decision pure: the caller adapts a pre-fetched task count (the store is
 * asynchronous) and the route's {@link RouteRetryBudget}. An instance serves one decision of
 * one call; the factories' instances are as thread-safe as the route budget they wrap.
 */
public interface RetryBudgets {
    /**
     * True when the task budget has a token left, or no task budget applies. Only asks: a
     * {@link RetryDecision#isRetry() RETRY} decision means the caller then charges one task retry.
     */
    boolean taskAllows();

    /** Takes a token from the route's retry budget; false when it has none. */
    boolean tryAcquireRoute();

    /** Budgets that never refuse. */
    static RetryBudgets unlimited() {
        return of(true, () -> true);
    }

    /** A task answer fetched beforehand (null: no task budget applies) and a route budget. */
    static RetryBudgets of(TaskBudgetDecision task, RouteRetryBudget route) {
        return of(task == null || task.allowed(), route::tryAcquireRetry);
    }

    /** A fixed task answer and a route token source. */
    static RetryBudgets of(boolean taskAllows, java.util.function.BooleanSupplier route) {
        return new RetryBudgets() {
            @Override
            public boolean taskAllows() {
                return taskAllows;
            }

            @Override
            public boolean tryAcquireRoute() {
                return route.getAsBoolean();
            }
        };
    }
}
