package dev.idemproxy.core.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.testing.RedisServerFixture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** A redis-server with {@code requirepass}: the password comes from the URI, and a wrong or missing one stops start-up. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisPasswordStoreTest {
    /** Characters a URI reserves: the URI must carry them percent-encoded. */
    private static final String PASSWORD = "s3cr@t/pa:ss";
    private static final String ENCODED = "s3cr%40t%2Fpa%3Ass";

    private RedisServerFixture redis;

    @BeforeAll
    void startRedis() {
        redis = RedisServerFixture.startWithPassword(PASSWORD);
    }

    @AfterAll
    void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void aPercentEncodedPasswordInTheUriAuthenticates() throws Exception {
        String uri = "redis://:" + ENCODED + "@127.0.0.1:" + redis.port();
        try (Stores store = RedisStore.connect(new RedisPolicy(uri, "standalone", "t:"),
                Duration.ofSeconds(5))) {
            assertThat(store.records().claim(new RecordKey("r", "s", "pw"), "fp", "o", Duration.ofMinutes(1), new ClaimContext("c"))
                    .toCompletableFuture().get(10, TimeUnit.SECONDS)).isInstanceOf(ClaimResult.Claimed.class);
        }
    }

    @Test
    void aWrongPasswordFailsAtConnectWithoutShowingIt() {
        String uri = "redis://:wrong-secret@127.0.0.1:" + redis.port();
        assertThatThrownBy(() -> RedisStore.connect(new RedisPolicy(uri, "standalone", "t:"), Duration.ofSeconds(5)))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageStartingWith("cannot connect to Redis at redis://***@127.0.0.1:" + redis.port())
                .hasMessageNotContaining("wrong-secret");
    }

    @Test
    void noPasswordFailsAtConnect() {
        assertThatThrownBy(() -> RedisStore.connect(new RedisPolicy(redis.uri(), "standalone", "t:"),
                        Duration.ofSeconds(5)))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("cannot connect to Redis at " + redis.uri());
    }
}
