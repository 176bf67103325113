package dev.idemproxy.core.retry;

import static dev.idemproxy.core.util.Checks.positive;
import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Set;

/**
 * A route's retry settings (docs/configuration.md {@code routes[].retry}). {@code maxAttempts} counts
 * the first attempt: 1 means no retry (Envoy's {@code num_retries} counts retries only).
 * This class is immutable.
 *
 * @param retryOn failure classes and status codes that may be retried, in the contract's
 *                spellings ({@code connect-failure}, {@code read-timeout}, {@code reset}, "503", …)
 */
public record RetryPolicy(int maxAttempts, Set<String> retryOn, BackoffPolicy backoff, Duration maxRetryAfter) {
    public static final Set<String> DEFAULT_RETRY_ON =
            Set.of("connect-failure", "read-timeout", "reset", "429", "502", "503", "504");
    public static final RetryPolicy DEFAULT = new RetryPolicy(1, DEFAULT_RETRY_ON, BackoffPolicy.DEFAULT, Duration.ofSeconds(60));

    public RetryPolicy {
        requireArgument(maxAttempts >= 1 && maxAttempts <= 100, "maxAttempts " + maxAttempts + " (expected: 1..100)");
        retryOn = Set.copyOf(requireNonNull(retryOn, "retryOn"));
        requireNonNull(backoff, "backoff");
        positive(maxRetryAfter, "maxRetryAfter");
    }

    public boolean retries() {
        return maxAttempts > 1;
    }
}
