package dev.idemproxy.core.retry;

import static java.util.Objects.requireNonNull;

/**
 * A task budget's answer for one retry: {@code allowed} while {@code used < maxRetries};
 * {@code remaining = max(0, maxRetries − used)} counts this retry's token too (it is what
 * {@code X-Retry-Budget-Remaining} shows before the retry is charged). This class is immutable.
 */
public record TaskBudgetDecision(boolean allowed, long used, int maxRetries, long remaining, TaskWindow window) {
    public TaskBudgetDecision {
        if (used < 0 || maxRetries < 0) {  // per call: the message is built only on failure
            throw new IllegalArgumentException("used " + used + ", maxRetries " + maxRetries + " (expected: both >= 0)");
        }
        requireNonNull(window, "window");
    }

    /** The decision for {@code used} retries already spent in {@code window}. */
    public static TaskBudgetDecision of(long used, int maxRetries, TaskWindow window) {
        long u = Math.max(0, used);
        return new TaskBudgetDecision(u < maxRetries, u, maxRetries, Math.max(0, maxRetries - u), window);
    }

    /** The decision after one more retry has been charged. */
    public TaskBudgetDecision charged() {
        return of(used + 1, maxRetries, window);
    }
}
