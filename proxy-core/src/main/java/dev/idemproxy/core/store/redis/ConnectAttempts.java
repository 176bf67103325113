package dev.idemproxy.core.store.redis;

import dev.idemproxy.core.util.LogThrottle;
import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.retry.Backoff;
import dev.idemproxy.core.retry.BackoffPolicy;
import dev.idemproxy.core.retry.Jitter;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * The pace of a store's attempts to connect, as pure arithmetic on times it is given: the pause
 * after each failure ({@link #PAUSES}: 100 ms doubling to 5 s, equal jitter, so from the seventh
 * failure on 2.5 to 5 s), and which failures are logged (the first, then at most one per
 * {@link #LOG_EVERY}, so a Redis away for an hour costs about 120 lines, not 1,000 a
 * minute). Not thread-safe: one connector thread uses it.
 */
final class ConnectAttempts {
    static final BackoffPolicy PAUSES = new BackoffPolicy(Duration.ofMillis(100), Duration.ofSeconds(5), 2.0,
            Jitter.parse("equal"));
    static final Duration LOG_EVERY = Duration.ofSeconds(30);

    private final Backoff backoff;
    private int failures;
    private long firstFailureNanos;
    private final LogThrottle logs = new LogThrottle(LOG_EVERY, Ticker.system());  // fed the times given, never its ticker

    ConnectAttempts(RandomGenerator random) {
        this.backoff = new Backoff(PAUSES, random);
    }

    /** Counts a failed attempt ended at {@code nowNanos}; returns the pause before the next one. */
    Duration failed(long nowNanos) {
        failures++;
        if (failures == 1) {
            firstFailureNanos = nowNanos;
        }
        return backoff.delayBefore(failures + 1);
    }

    /**
     * Whether the failure just counted is logged: the first one, and then one whenever
     * {@link #LOG_EVERY} has passed since the last one logged.
     */
    boolean logNow(long nowNanos) {
        return logs.pass(nowNanos) >= 0;
    }

    /** Failed attempts so far. */
    int failures() {
        return failures;
    }

    /** How long since the first failure, at {@code nowNanos}; zero before any. */
    Duration failingFor(long nowNanos) {
        return failures == 0 ? Duration.ZERO : Duration.ofNanos(nowNanos - firstFailureNanos);
    }
}
