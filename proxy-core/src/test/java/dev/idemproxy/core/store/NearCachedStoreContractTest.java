package dev.idemproxy.core.store;

import dev.idemproxy.core.store.StorePolicy.NearCachePolicy;
import dev.idemproxy.core.store.memory.MemoryIdempotencyStore;
import dev.idemproxy.core.testing.TestClock;
import java.time.Duration;

/** The near-cache keeps every promise of the store it fronts: the whole contract, through it. */
class NearCachedStoreContractTest extends IdempotencyStoreContract {
    private final TestClock clock = new TestClock();

    @Override
    protected IdempotencyStore newStore() {
        return NearCachedStore.wrap(MemoryIdempotencyStore.create(10_000, clock),
                new NearCachePolicy(true, 1000, 64L * 1024 * 1024, Duration.ofMinutes(10)), clock);
    }

    @Override
    protected Duration shortLease() {
        return Duration.ofSeconds(30);
    }

    @Override
    protected void elapse(Duration d) {
        clock.advance(d);
    }
}
