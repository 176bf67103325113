package dev.idemproxy.core.store.redis;

import dev.idemproxy.core.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.IdempotencyStoreContract;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.testing.Claims;
import dev.idemproxy.core.testing.RedisServerExtension;
import dev.idemproxy.core.testing.RedisServerFixture;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The store contract against a real standalone redis-server, plus an outage and a restart. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisStandaloneStoreTest extends IdempotencyStoreContract {
    @RegisterExtension
    static final RedisServerExtension REDIS = RedisServerExtension.standalone();

    @Override
    protected Stores newStore() {
        return RedisStore.connect(new RedisPolicy(redisUri(), "standalone", "test:"), Duration.ofSeconds(5));
    }

    /** The private redis-server. */
    protected RedisServerFixture redisServer() {
        return REDIS.server();
    }

    /** The private redis-server's URI. */
    protected String redisUri() {
        return REDIS.server().uri();
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
    void anOutageFailsOperationsAsUnavailableAndARestartRecovers() throws Exception {
        RecordKey key = new RecordKey("r", "s", "outage");
        assertThat(await(store.get(key))).isEmpty();
        assertThat(store.isAvailable()).isTrue();
        REDIS.server().stop();
        try {
            assertThat(store.get(key).toCompletableFuture())
                    .failsWithin(Duration.ofSeconds(10))
                    .withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(StoreUnavailableException.class);
            // Lettuce may fail the pending command a moment before it marks the connection closed.
            Await.until("the store to see Redis gone", Duration.ofSeconds(5), () -> !store.isAvailable());
            assertThat(store.isAvailable()).isFalse();
        } finally {
            REDIS.server().start();
        }
        // Lettuce reconnects in the background with its own backoff.
        Await.until("the store to reconnect", Duration.ofSeconds(20), store::isAvailable);
        assertThat(store.isAvailable()).isTrue();
        assertThat(await(store.get(key))).isEmpty();
    }

    /**
     * {@code FLUSHDB} while a call is in flight (as a Redis restarted without persistence): the
     * owner's end writes its outcome back, says so at WARN, and a duplicate is a replay.
     */
    @Test
    void aFlushMidCallIsWrittenBackByTheOwnerWithAWarning() throws Exception {
        ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(
                RedisStore.class);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> events =
                new ch.qos.logback.core.read.ListAppender<>();
        events.start();
        logger.addAppender(events);
        try {
            RecordKey key = new RecordKey("r", "s", "flushed-" + System.nanoTime());
            assertThat(await(store.claim(key, "fp", "o1", Duration.ofMinutes(1), new ClaimContext("call-o1"))))
                    .isInstanceOf(ClaimResult.Claimed.class);
            assertThat(REDIS.server().command("FLUSHDB")).isEqualTo("+OK");
            StoredResponse response = new StoredResponse(200, java.util.List.of(), new byte[] {1, 2});
            assertThat(await(store.complete(key, Claims.owned("o1"), response, 1, Duration.ofMinutes(1)))).isTrue();
            assertThat(await(store.claim(key, "fp", "o2", Duration.ofMinutes(1), new ClaimContext("call-o2"))))
                    .isEqualTo(new ClaimResult.Completed(response, "call-o1", 1));
            assertThat(events.list).extracting(e -> e.getFormattedMessage()).contains("[call=call-o1] its idempotency record was"
                    + " gone from Redis (restarted empty, flushed or evicted?): its outcome was written back");
        } finally {
            logger.detachAppender(events);
        }
    }

    /**
     * The index of recent calls is trimmed to its newest {@link RedisReceipts#RECENT_MAX} once
     * every {@link RedisReceipts#TRIM_EVERY} index writes, not on every call: until then it keeps
     * what it had plus what was written.
     */
    @Test
    void theIndexOfRecentCallsIsTrimmedToItsNewestOnceEveryThousandWrites() throws Exception {
        String index = "trim:calls";
        int old = RedisReceipts.RECENT_MAX + 500;
        REDIS.server().command("EVAL", "for i = 1, tonumber(ARGV[1]) do redis.call('ZADD', KEYS[1], 0,"
                + " string.format('000000000001old%07d', i)) end return 1", "1", index, Integer.toString(old));
        Stores trimmed = RedisStore.connect(new RedisPolicy(redisUri(), "standalone", "trim:"), Duration.ofSeconds(5));
        try {
            java.util.List<java.util.concurrent.CompletableFuture<Void>> writes = new java.util.ArrayList<>();
            for (int i = 1; i < RedisReceipts.TRIM_EVERY; i++) {
                writes.add(trimmed.receipts().putReceipt(receipt(i), Duration.ofMinutes(5)).toCompletableFuture());
            }
            java.util.concurrent.CompletableFuture.allOf(writes.toArray(java.util.concurrent.CompletableFuture[]::new))
                    .get(30, TimeUnit.SECONDS);
            assertThat(REDIS.server().command("ZCARD", index)).isEqualTo(":" + (old + RedisReceipts.TRIM_EVERY - 1));

            await(trimmed.receipts().putReceipt(receipt(RedisReceipts.TRIM_EVERY), Duration.ofMinutes(5)));
            await(trimmed.receipts().receipt(receipt(1).callId()));  // answered after the trim, sent before it on the same connection
            assertThat(REDIS.server().command("ZCARD", index)).isEqualTo(":" + RedisReceipts.RECENT_MAX);
            assertThat(REDIS.server().command("ZLEXCOUNT", index, "[call-", "+")).as("every call written is kept")
                    .isEqualTo(":" + RedisReceipts.TRIM_EVERY);
            assertThat(await(trimmed.receipts().recentCalls(dev.idemproxy.core.store.CallQuery.newest(1))).calls())
                    .containsExactly(receipt(RedisReceipts.TRIM_EVERY));
        } finally {
            trimmed.close();
            REDIS.server().command("DEL", index);
        }
    }

    private static dev.idemproxy.core.store.Receipt receipt(int i) {
        return new dev.idemproxy.core.store.Receipt("call-%07d".formatted(i), null, "k" + i, "trim", "SUCCESS", null, 200, 1,
                java.time.Instant.parse("2026-12-04T20:00:00Z").plusMillis(i), null);
    }

    @Test
    void connectingToANonListeningPortFailsAsUnavailable() {
        int port = dev.idemproxy.core.testing.FreePorts.pick();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> RedisStore.connect(
                        new RedisPolicy("redis://127.0.0.1:" + port, "standalone", "t:"), Duration.ofSeconds(2)))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("cannot connect to Redis at redis://127.0.0.1:" + port);
    }
}
