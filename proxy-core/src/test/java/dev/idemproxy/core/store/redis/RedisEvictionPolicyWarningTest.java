package dev.idemproxy.core.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.testing.RedisServerFixture;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The start-up warning when Redis's {@code maxmemory-policy} could evict idempotency records. */
class RedisEvictionPolicyWarningTest {
    private final Logger logger = (Logger) LoggerFactory.getLogger(RedisStore.class);
    private final ListAppender<ILoggingEvent> events = new ListAppender<>();

    @BeforeEach
    void capture() {
        events.start();
        logger.addAppender(events);
    }

    @AfterEach
    void release() {
        logger.detachAppender(events);
    }

    @Test
    void anEvictingPolicyIsWarnedAboutBeforeConnectReturns() {
        try (RedisServerFixture redis = RedisServerFixture.startStandalone("--maxmemory-policy", "allkeys-lru");
                Stores store = connect(redis.uri())) {
            assertThat(warnings()).containsExactly("Redis at " + redis.uri() + " has maxmemory-policy allkeys-lru:"
                    + " it may evict idempotency records and re-execute duplicates; set maxmemory-policy noeviction");
        }
    }

    @Test
    void noevictionIsNotWarnedAbout() {
        try (RedisServerFixture redis = RedisServerFixture.startStandalone("--maxmemory-policy", "noeviction");
                Stores store = connect(redis.uri())) {
            assertThat(warnings()).isEmpty();
        }
    }

    @Test
    void aRedisThatRefusesConfigIsAcceptedWithoutAWarning() {
        try (RedisServerFixture redis = RedisServerFixture.startStandalone("--maxmemory-policy", "volatile-ttl",
                        "--rename-command", "CONFIG", "");
                Stores store = connect(redis.uri())) {
            assertThat(warnings()).isEmpty();
            assertThat(store.isAvailable()).isTrue();
        }
    }

    private static Stores connect(String uri) {
        return RedisStore.connect(new RedisPolicy(uri, "standalone", "t:"), Duration.ofSeconds(5));
    }

    private java.util.List<String> warnings() {
        return events.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage).toList();
    }
}
