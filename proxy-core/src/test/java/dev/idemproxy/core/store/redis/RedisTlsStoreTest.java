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
import dev.idemproxy.core.testing.RedisServerFixture;
import dev.idemproxy.core.testing.TestCertificates;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The store contract over {@code rediss://} against a redis-server that speaks TLS only, its
 * certificate (SAN {@code localhost}, {@code 127.0.0.1}) signed by a CA generated for the test and
 * trusted through {@code tls.caFile}; and that a certificate the client cannot verify stops it at
 * connect.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisTlsStoreTest extends IdempotencyStoreContract {
    private TestCertificates certs;
    private RedisServerFixture redis;

    @BeforeAll
    void startRedis() {
        certs = TestCertificates.create();
        redis = RedisServerFixture.startTls(certs);
    }

    @AfterAll
    void stopRedis() {
        if (redis != null) {
            redis.close();
        }
        if (certs != null) {
            certs.close();
        }
    }

    @Override
    protected Stores newStore() {
        return RedisStore.connect(new RedisPolicy(redis.uri(), "standalone", "test:", certs.caPemFile()),
                Duration.ofSeconds(5));
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
    void theHostNameIsVerifiedAgainstTheCertificateByNameToo() throws Exception {
        String byName = redis.uri().replace("127.0.0.1", "localhost");
        try (Stores other = RedisStore.connect(
                new RedisPolicy(byName, "standalone", "test:", certs.caPemFile()), Duration.ofSeconds(5))) {
            assertThat(await(other.records().claim(new RecordKey("r", "s", "by-name"), "fp", "o", Duration.ofMinutes(1),
                    new ClaimContext("c")))).isInstanceOf(ClaimResult.Claimed.class);
        }
    }

    @Test
    void aServerCertificateNotSignedByTheConfiguredCaFailsAtConnect() {
        assertThatThrownBy(() -> RedisStore.connect(
                        new RedisPolicy(redis.uri(), "standalone", "t:", certs.unrelatedCaPemFile()), Duration.ofSeconds(5)))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageStartingWith("cannot connect to Redis at " + redis.uri() + ": ")
                .hasMessageContaining("certification path");
    }

    @Test
    void withoutACaFileTheJvmTrustStoreIsUsedAndDoesNotTrustAPrivateCa() {
        assertThatThrownBy(() -> RedisStore.connect(
                        new RedisPolicy(redis.uri(), "standalone", "t:"), Duration.ofSeconds(5)))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("certification path");
    }

    @Test
    void plainRedisToATlsPortFailsAtConnect() {
        assertThatThrownBy(() -> RedisStore.connect(
                        new RedisPolicy(redis.uri().replace("rediss://", "redis://"), "standalone", "t:"), Duration.ofSeconds(2)))
                .isInstanceOf(StoreUnavailableException.class);
    }
}
