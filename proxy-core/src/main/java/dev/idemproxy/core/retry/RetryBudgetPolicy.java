package dev.idemproxy.core.retry;

import static dev.idemproxy.core.util.Checks.positive;
import static dev.idemproxy.core.util.Checks.requireArgument;

import java.time.Duration;

/**
 * Per-route retry budget (Linkerd/Finagle style): retries may be at most {@code ratio} of the
 * requests over a sliding {@code window}, plus {@code minPerSecond}. This class is immutable.
 */
public record RetryBudgetPolicy(double ratio, int minPerSecond, Duration window) {
    public static final RetryBudgetPolicy DEFAULT = new RetryBudgetPolicy(0.2, 10, Duration.ofSeconds(10));

    public RetryBudgetPolicy {
        requireArgument(ratio >= 0.0 && ratio <= 1000.0, "ratio " + ratio + " (expected: 0.0..1000.0)");
        requireArgument(minPerSecond >= 0, "minPerSecond " + minPerSecond + " (expected: >= 0)");
        positive(window, "window");
    }
}
