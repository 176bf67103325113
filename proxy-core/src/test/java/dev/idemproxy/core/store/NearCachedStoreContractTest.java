package dev.idemproxy.core.store;

import dev.idemproxy.core.store.StorePolicy.NearCachePolicy;
import dev.idemproxy.core.store.memory.MemoryStore;
import dev.idemproxy.core.testing.TestClock;
import java.time.Duration;

/** The near-cache keeps every promise of the store it fronts: the whole contract, through it. */
class NearCachedStoreContractTest extends IdempotencyStoreContract {
    private final TestClock clock = new TestClock();

    @Override
    protected Stores newStore() {
        Stores memory = MemoryStore.create(10_000, clock);
        return memory.withRecords(NearCachedStore.wrap(memory.records(),
                new NearCachePolicy(true, 1000, 64L * 1024 * 1024, Duration.ofMinutes(10)), clock));
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
