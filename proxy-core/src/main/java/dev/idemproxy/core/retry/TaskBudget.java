package dev.idemproxy.core.retry;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * The pure part of the per-task retry budget (docs/configuration.md {@code tasks.budget}): which fixed
 * window "now" falls in ({@code floor(epochMillis / window)}) and what a count of retries already
 * spent in it allows. Counting itself lives in a store shared by the proxies (or in
 * {@link LocalTaskBudgets}). Calls without a task id have no task budget. Replays never charge.
 * This class is immutable and thread-safe.
 */
public final class TaskBudget {
    private final TaskPolicy policy;
    private final Clock clock;
    private final long windowMillis;

    public TaskBudget(TaskPolicy policy, Clock clock) {
        this.policy = requireNonNull(policy, "policy");
        this.clock = requireNonNull(clock, "clock");
        this.windowMillis = Math.max(1, policy.window().toMillis());
    }

    /** The window that contains now. */
    public TaskWindow currentWindow() {
        long index = Math.floorDiv(clock.millis(), windowMillis);
        return new TaskWindow(index, Instant.ofEpochMilli(index * windowMillis), Instant.ofEpochMilli((index + 1) * windowMillis));
    }

    /** The answer for a task that has spent {@code used} retries in the current window. */
    public TaskBudgetDecision decide(long used) {
        return TaskBudgetDecision.of(used, policy.maxRetries(), currentWindow());
    }

    /**
     * How long a store keeps the counter of {@code window} from now: to the window's end, plus one
     * window more, so that a proxy whose clock lags still finds the counter it shares.
     */
    public Duration counterTtl(TaskWindow window) {
        return Duration.ofMillis(Math.max(1, window.end().toEpochMilli() - clock.millis() + windowMillis));
    }

    public TaskPolicy policy() {
        return policy;
    }
}
