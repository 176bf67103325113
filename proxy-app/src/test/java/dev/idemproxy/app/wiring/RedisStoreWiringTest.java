package dev.idemproxy.app.wiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idemproxy.app.config.YamlConfigLoader;
import dev.idemproxy.core.net.IoLoops;
import dev.idemproxy.core.net.IoLoops;
import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.retry.Backoff;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StorePolicy;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.testing.RedisServerFixture;
import dev.idemproxy.core.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A config file's Redis settings, through the loader and {@link StoreFactory}, against real
 * servers: a password from {@code ${ENV}}, and {@code rediss://} with {@code tls.caFile} relative to
 * the config file.
 */
class RedisStoreWiringTest {

    @Test
    void aPasswordFromTheEnvironmentAuthenticates(@TempDir Path dir) throws Exception {
        try (RedisServerFixture redis = RedisServerFixture.startWithPassword("env-secret")) {
            StorePolicy policy = load(dir, Map.of("REDIS_PASSWORD", "env-secret"),
                    "  redis: { uri: \"redis://:${REDIS_PASSWORD}@127.0.0.1:" + redis.port() + "\" }\n");

            try (IoLoops loops = IoLoops.start(1); Stores store = StoreFactory.open(policy, Clock.systemUTC(), Ticker.system(), Backoff.threadLocalRandom(), loops)) {
                assertClaims(store);
            }
        }
    }

    @Test
    void redissWithTheConfiguredCaFileConnectsAndAnotherCaStopsStartUp(@TempDir Path dir) throws Exception {
        try (TestCertificates certs = TestCertificates.create();
                RedisServerFixture redis = RedisServerFixture.startTls(certs)) {
            Files.createDirectories(dir.resolve("certs"));
            Files.copy(certs.caPemFile(), dir.resolve("certs/redis-ca.pem"));
            Files.copy(certs.unrelatedCaPemFile(), dir.resolve("certs/other-ca.pem"));

            StorePolicy good = load(dir, Map.of(), "  redis: { uri: \"" + redis.uri() + "\", tls: { caFile: certs/redis-ca.pem } }\n");
            try (IoLoops loops = IoLoops.start(1); Stores store = StoreFactory.open(good, Clock.systemUTC(), Ticker.system(), Backoff.threadLocalRandom(), loops)) {
                assertClaims(store);
            }

            StorePolicy wrong = load(dir, Map.of(), "  redis: { uri: \"" + redis.uri() + "\", tls: { caFile: certs/other-ca.pem } }\n");
            try (IoLoops loops = IoLoops.start(1)) {
                assertThatThrownBy(() -> StoreFactory.open(wrong, Clock.systemUTC(), Ticker.system(), Backoff.threadLocalRandom(), loops))
                        .isInstanceOf(StartupException.class)
                        .hasMessageStartingWith("cannot open the redis store at " + redis.uri() + ": cannot connect to Redis at ")
                        .hasMessageContaining("certification path");
            }
        }
    }

    private static StorePolicy load(Path dir, Map<String, String> env, String redisLine) throws Exception {
        Path file = dir.resolve("idemproxy.yaml");
        Files.writeString(file, "store:\n  type: redis\n" + redisLine);
        return new YamlConfigLoader(env::get).load(file).store();
    }

    private static void assertClaims(Stores store) throws Exception {
        assertThat(store.records().claim(new RecordKey("r", "s", "wired"), "fp", "o", Duration.ofMinutes(1), new ClaimContext("c"))
                .toCompletableFuture().get(10, TimeUnit.SECONDS)).isInstanceOf(ClaimResult.Claimed.class);
    }
}
