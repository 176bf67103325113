package dev.idemproxy.core.store;

import dev.idemproxy.core.retry.BackoffPolicy;
import dev.idemproxy.core.retry.Jitter;
import dev.idemproxy.core.retry.RetrySchedule;
import java.time.Duration;

/** How often the proxy tries a store write again. Stateless. */
public final class StoreRetries {
    /**
     * A write of a call's trace that the store did not take (its record's end, its receipt, its
     * dead letter), so that an outcome reached during a store outage is still kept once the store
     * is back: 25 tries, the pauses 0.5 s doubling to 30 s, without jitter, about ten minutes in
     * all. The Redis store's eviction fence outlasts it (a released record is not written back).
     */
    public static final RetrySchedule WRITES = new RetrySchedule(25,
            new BackoffPolicy(Duration.ofMillis(500), Duration.ofSeconds(30), 2.0, Jitter.parse("none")));

    private StoreRetries() {
    }
}
