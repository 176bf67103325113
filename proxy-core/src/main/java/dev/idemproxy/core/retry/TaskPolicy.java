package dev.idemproxy.core.retry;

import static dev.idemproxy.core.util.Checks.positive;
import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * Per-task retry budget (docs/configuration.md {@code tasks}): the header naming a task and how many
 * retries all its calls may spend per window. This class is immutable.
 */
public record TaskPolicy(String header, int maxRetries, Duration window) {
    public static final TaskPolicy DEFAULT = new TaskPolicy("X-Task-Id", 20, Duration.ofHours(1));

    public TaskPolicy {
        requireNonNull(header, "header");
        requireArgument(maxRetries >= 0, "maxRetries " + maxRetries + " (expected: >= 0)");
        positive(window, "window");
    }
}
