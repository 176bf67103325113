package dev.idemproxy.core.store.redis;

import dev.idemproxy.core.testing.Await;

import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.IdempotencyStoreContract;
import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import dev.idemproxy.core.testing.RedisClusterFixture;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The store contract against a real three-master Redis Cluster. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisClusterStoreTest extends IdempotencyStoreContract {
    private RedisClusterFixture cluster;

    @BeforeAll
    void startCluster() {
        cluster = RedisClusterFixture.start();
    }

    @AfterAll
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected Stores newStore() {
        return RedisStore.connect(new RedisPolicy(cluster.uri(), "cluster", "test:"), Duration.ofSeconds(5));
    }

    @Override
    protected Duration shortLease() {
        return Duration.ofMillis(200);
    }

    /** Redis keeps time by its own clock, which no test can move: real time has to pass. */
    @Override
    protected void elapse(Duration d) {
        Await.realTime(d.plusMillis(5));
    }
}
