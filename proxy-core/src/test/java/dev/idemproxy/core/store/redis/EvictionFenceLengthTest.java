package dev.idemproxy.core.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.store.StoreRetries;
import dev.idemproxy.core.store.Stores;
import org.junit.jupiter.api.Test;

/** A released record stays fenced longer than its settled call can still be writing it back. */
class EvictionFenceLengthTest {

    @Test
    void theFenceOutlastsEveryTryOfAStoreWriteAndItsPauses() {
        int tries = StoreRetries.WRITES.maxTries();
        assertThat(RedisRecords.EVICTION_FENCE)
                .isGreaterThan(StoreRetries.WRITES.longestPauses().plus(dev.idemproxy.core.StoreBackends.REDIS_COMMAND_TIMEOUT.multipliedBy(tries)));
    }
}
