package dev.idemproxy.core.retry;

import static dev.idemproxy.core.util.Checks.positive;
import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * Exponential backoff: attempt n (n ≥ 2) waits initial × multiplier^(n−2), capped at max,
 * then jittered. This class is immutable.
 */
public record BackoffPolicy(Duration initial, Duration max, double multiplier, Jitter jitter) {
    public static final BackoffPolicy DEFAULT = new BackoffPolicy(Duration.ofMillis(200), Duration.ofSeconds(10), 2.0, Jitter.FULL);

    public BackoffPolicy {
        positive(initial, "initial");
        positive(max, "max");
        requireArgument(max.compareTo(initial) >= 0, "max " + max + " is below initial " + initial + " (expected: max >= initial)");
        requireArgument(multiplier >= 1.0 && multiplier <= 100.0, "multiplier " + multiplier + " (expected: 1.0..100.0)");
        requireNonNull(jitter, "jitter");
    }
}
