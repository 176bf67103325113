package dev.idemproxy.core.retry;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * One fixed window of a task budget: window {@code index} covers
 * [{@code index × window}, {@code (index + 1) × window}) in epoch time. Fixed windows (not
 * sliding) let proxies sharing a store agree on the counter's key without coordination.
 * This class is immutable.
 */
public record TaskWindow(long index, Instant start, Instant end) {
    public TaskWindow {
        requireNonNull(start, "start");
        requireNonNull(end, "end");
    }

    /** The store key of a task's counter in this window: {@code taskId + "@" + index}. */
    public String key(String taskId) {
        return requireNonNull(taskId, "taskId") + "@" + index;
    }
}
