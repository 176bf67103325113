package dev.idemproxy.core.retry;

import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * How an operation that failed is tried again: at most {@code maxTries} tries in all, and between
 * them the pauses of {@code backoff} (the pause after try n is the backoff before attempt n + 1, so
 * the first pause is {@code initial}). What the tries do, and where they wait, is the caller's.
 * This class is immutable.
 */
public record RetrySchedule(int maxTries, BackoffPolicy backoff) {

    public RetrySchedule {
        requireArgument(maxTries >= 1, "maxTries " + maxTries + " (expected: >= 1)");
        requireNonNull(backoff, "backoff");
    }

    /** Whether a try follows try {@code tries} (counted from 1) when it failed. */
    public boolean triesAfter(int tries) {
        return tries < maxTries;
    }

    /** The pause after failed try {@code tries} (counted from 1), jittered by {@code random}. */
    public Duration pauseAfter(int tries, RandomGenerator random) {
        return new Backoff(backoff, random).delayBefore(tries + 1);
    }

    /** The longest that the pauses between all {@link #maxTries} tries can add up to, whatever the jitter draws. */
    public Duration longestPauses() {
        Duration sum = Duration.ZERO;
        for (int tries = 1; tries < maxTries; tries++) {
            sum = sum.plus(Backoff.ceiling(backoff, tries + 1));
        }
        return sum;
    }
}
