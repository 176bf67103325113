package dev.idemproxy.core.store.redis;

import dev.idemproxy.core.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.IdempotencyStoreContract;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.testing.RedisSentinelFixture;
import dev.idemproxy.core.testing.RedisServerFixture;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The store contract in {@code mode: sentinel}: Lettuce asks the Sentinels for the master of
 * {@code mymaster} and talks to it (one master, one replica, two Sentinels, all real processes).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisSentinelStoreTest extends IdempotencyStoreContract {
    private RedisSentinelFixture sentinel;

    @BeforeAll
    void startSentinel() {
        sentinel = RedisSentinelFixture.start();
    }

    @AfterAll
    void stopSentinel() {
        if (sentinel != null) {
            sentinel.close();
        }
    }

    @Override
    protected Stores newStore() {
        return RedisStore.connect(new RedisPolicy(sentinel.uri(), "sentinel", "test:"), Duration.ofSeconds(5));
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

    @Test
    void recordsAreWrittenToTheMasterSentinelNames() throws Exception {
        RecordKey key = new RecordKey("r", "s", "where");
        assertThat(await(store.claim(key, "fp", "o1", Duration.ofMinutes(1), new ClaimContext("c1"))))
                .isInstanceOf(ClaimResult.Claimed.class);

        String redisKey = ((RedisRecords) store).recordKey(key);
        assertThat(sentinel.master().command("EXISTS", redisKey)).isEqualTo(":1");
    }

    @Test
    void connectsThroughTheSecondSentinelWhenTheFirstIsDown() throws Exception {
        RedisServerFixture first = sentinel.sentinels().get(0);
        first.stop();
        try (Stores other = newStore()) {
            RecordKey key = new RecordKey("r", "s", "second-sentinel");
            assertThat(await(other.records().claim(key, "fp", "o1", Duration.ofMinutes(1), new ClaimContext("c1"))))
                    .isInstanceOf(ClaimResult.Claimed.class);
        } finally {
            first.start();
        }
    }

    @Test
    void anUnknownMasterNameFailsAsUnavailableAtConnect() {
        String uri = sentinel.uri().replace("#" + RedisSentinelFixture.MASTER_NAME, "#nosuchmaster");
        assertThatThrownBy(() -> RedisStore.connect(new RedisPolicy(uri, "sentinel", "t:"), Duration.ofSeconds(2)))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("cannot connect to Redis at " + uri);
    }
}
