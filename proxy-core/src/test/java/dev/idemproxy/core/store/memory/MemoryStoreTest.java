package dev.idemproxy.core.store.memory;

import dev.idemproxy.core.store.IdempotencyStoreContract;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.testing.TestClock;
import java.time.Duration;

class MemoryStoreTest extends IdempotencyStoreContract {
    private final TestClock clock = new TestClock();

    @Override
    protected Stores newStore() {
        return MemoryStore.create(10_000, clock);
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
