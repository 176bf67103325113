package dev.idemproxy.core.retry;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Per-task retry counters held in memory, for the {@code memory} store and tests. Counters are
 * kept per (task, window); those of past windows are dropped the first time a newer window is
 * seen, so memory stays bounded by the tasks active in one window. This class is thread-safe:
 * {@link #tryAcquire} checks and charges atomically per task.
 */
public final class LocalTaskBudgets {
    private final TaskBudget budget;
    private final ConcurrentHashMap<String, Counter> counters = new ConcurrentHashMap<>();
    private final AtomicLong sweptWindow = new AtomicLong(Long.MIN_VALUE);

    private record Counter(long window, long used) {}

    public LocalTaskBudgets(TaskPolicy policy, Clock clock) {
        this.budget = new TaskBudget(policy, clock);
    }

    /** The task's budget now, charging nothing. */
    public TaskBudgetDecision peek(String taskId) {
        requireNonNull(taskId, "taskId");
        TaskWindow window = sweep();
        Counter c = counters.get(taskId);
        return TaskBudgetDecision.of(c == null || c.window() != window.index() ? 0 : c.used(),
                budget.policy().maxRetries(), window);
    }

    /**
     * Charges one retry when the budget allows it. The returned decision is the one taken
     * before charging: when {@link TaskBudgetDecision#allowed()} the retry was counted.
     */
    public TaskBudgetDecision tryAcquire(String taskId) {
        requireNonNull(taskId, "taskId");
        TaskWindow window = sweep();
        int max = budget.policy().maxRetries();
        TaskBudgetDecision[] answer = new TaskBudgetDecision[1];
        counters.compute(taskId, (id, c) -> {
            long used = c == null || c.window() != window.index() ? 0 : c.used();
            answer[0] = TaskBudgetDecision.of(used, max, window);
            return new Counter(window.index(), answer[0].allowed() ? used + 1 : used);
        });
        return answer[0];
    }

    /** Tasks with a counter in memory (current or not yet swept). */
    public int size() {
        return counters.size();
    }

    private TaskWindow sweep() {
        TaskWindow window = budget.currentWindow();
        long seen = sweptWindow.get();
        if (seen < window.index() && sweptWindow.compareAndSet(seen, window.index())) {
            counters.values().removeIf(c -> c.window() < window.index());
        }
        return window;
    }
}
