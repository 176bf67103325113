package dev.idemproxy.core.store.redis;

import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import java.time.Duration;

/**
 * The store contract with every claim run as the Lua script, as against a Redis before 7.0 (no
 * {@code SET ... NX GET}); the native claim only answers the cases that script would, so both
 * must pass the same suite.
 */
class RedisScriptClaimStoreTest extends RedisStandaloneStoreTest {
    @Override
    protected Stores newStore() {
        Stores stores = RedisStore.connect(new RedisPolicy(redisUri(), "standalone", "test:"),
                Duration.ofSeconds(5));
        ((RedisRecords) stores.records()).scriptClaimsOnly();
        return stores;
    }
}
