package dev.idemproxy.core.store.redis;

import dev.idemproxy.core.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.testing.Claims;
import dev.idemproxy.core.testing.LoopbackBlackhole;
import dev.idemproxy.core.testing.LoopbackServer;
import dev.idemproxy.core.testing.RedisClusterFixture;
import dev.idemproxy.core.testing.RedisSentinelFixture;
import dev.idemproxy.core.testing.RedisServerFixture;
import dev.idemproxy.core.testing.TestCertificates;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A Redis store started while Redis is away ({@link RedisStore#start}): it is
 * unavailable, every operation fails at once as unavailable, it logs once rather than per
 * attempt, and once Redis is there it works as if it had started connected (the
 * {@code maxmemory-policy} warning included), standalone, cluster and Sentinel alike. Settings
 * that no retry can mend (a wrong password, a certificate that does not verify) still fail the
 * start.
 */
class RedisStartWhileDownTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
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
    void aStandaloneStoreStartedBeforeRedisConnectsOnceItIsThereAndWarnsAboutEvictionThen() throws Exception {
        try (RedisServerFixture redis = RedisServerFixture.notStarted("--maxmemory-policy", "allkeys-lru");
                Stores store = RedisStore.start(new RedisPolicy(redis.uri(), "standalone", "t:"),
                        TIMEOUT, null)) {
            assertThat(store.isAvailable()).isFalse();
            assertUnavailable(store);
            awaitFailures(store, 3);  // attempts go on in the background...
            assertThat(warnings()).as("...but only the first failure is logged").hasSize(1);
            assertThat(warnings().get(0)).startsWith("cannot connect to Redis at " + redis.uri() + ": ")
                    .endsWith("; trying again in the background, with pauses growing to 5 s: until it connects /readyz is 503"
                            + " and protected calls follow store.onUnavailable");

            redis.start();
            awaitAvailable(store);
            assertWorks(store, "standalone");
            assertThat(warnings()).as("the start-up check, run once connected").contains("Redis at " + redis.uri()
                    + " has maxmemory-policy allkeys-lru: it may evict idempotency records and re-execute duplicates;"
                    + " set maxmemory-policy noeviction");
            assertThat(infos()).anyMatch(m -> m.startsWith("connected to Redis at " + redis.uri() + " after "));
        }
        assertThat(connectorThreads()).as("the connector's thread ends").isZero();
    }

    @Test
    void aClusterStartedWhileEveryNodeIsDownConnectsOnceTheyAreBack() throws Exception {
        try (RedisClusterFixture cluster = RedisClusterFixture.start()) {
            cluster.stop();
            try (Stores store = RedisStore.start(new RedisPolicy(cluster.uri(), "cluster", "t:"),
                    TIMEOUT, null)) {
                assertThat(store.isAvailable()).isFalse();
                assertUnavailable(store);
                cluster.restart();
                awaitAvailable(store);
                for (int i = 0; i < 6; i++) {  // keys in several slots, so every master takes part
                    assertWorks(store, "cluster-" + i);
                }
            }
        }
    }

    /**
     * A replica that has failed for good stays in the cluster's topology (flagged fail) until an
     * operator forgets it; every slot is still served by a master that answers, so the store
     * connects, and says which node it left out.
     */
    @Test
    void aClusterWhoseTopologyListsAFailedReplicaConnectsWithoutIt() throws Exception {
        try (RedisClusterFixture cluster = RedisClusterFixture.start()) {
            RedisServerFixture replica = cluster.addReplica();
            String replicaId = replica.command("CLUSTER", "MYID").trim();
            replica.stop();
            for (RedisServerFixture master : cluster.nodes()) {
                RedisClusterFixture.awaitNodeLine(master, replicaId, "slave,fail ");
            }
            try (Stores store = RedisStore.start(new RedisPolicy(cluster.uri(), "cluster", "t:"),
                    TIMEOUT, null)) {
                awaitAvailable(store);
                for (int i = 0; i < 6; i++) {
                    assertWorks(store, "cluster-" + i);
                }
                assertThat(warnings()).anyMatch(m -> m.startsWith("Redis cluster at " + cluster.uri() + ": replica 127.0.0.1:"
                        + replica.port() + " (" + replicaId + ", flags [") && m.contains("did not connect")
                        && m.endsWith("; going on without it: every slot has a master that answers"));
            }
        }
    }

    /**
     * A master that does not answer leaves its slots unserved: the store stays unavailable and
     * its (throttled) line names the slots and the node, until the master is back.
     */
    @Test
    void aClusterWithAMasterDownStaysUnavailableNamingItsSlotsUntilItIsBack() throws Exception {
        try (RedisClusterFixture cluster = RedisClusterFixture.start()) {
            RedisServerFixture down = cluster.nodes().get(1);
            String myself = java.util.Arrays.stream(down.command("CLUSTER", "NODES").split("\n"))
                    .filter(l -> l.contains("myself")).findFirst().orElseThrow();
            String[] fields = myself.trim().split(" ");
            String slots = fields[fields.length - 1];  // one range per master, as redis-cli --cluster create assigns them
            down.stop();
            try (Stores store = RedisStore.start(new RedisPolicy(cluster.uri(), "cluster", "t:"),
                    TIMEOUT, null)) {
                awaitFailures(store, 2);
                assertThat(store.isAvailable()).isFalse();
                assertUnavailable(store);
                assertThat(warnings()).hasSize(1);
                assertThat(warnings().get(0)).startsWith("cannot connect to Redis at " + cluster.uri()
                        + ": the cluster cannot serve every slot: slots " + slots + " at master 127.0.0.1:" + down.port()
                        + " (" + fields[0] + ") which did not connect (");

                down.start();
                awaitAvailable(store);
                cluster.awaitOk();  // a restarted master answers CLUSTERDOWN for a moment, and the store with it
                for (int i = 0; i < 6; i++) {
                    assertWorks(store, "cluster-" + i);
                }
            }
        }
    }

    @Test
    void aSentinelStoreStartedWhileTheSentinelsAreDownConnectsOnceTheyAreBack() throws Exception {
        try (RedisSentinelFixture sentinel = RedisSentinelFixture.start()) {
            sentinel.sentinels().forEach(RedisServerFixture::stop);
            try (Stores store = RedisStore.start(new RedisPolicy(sentinel.uri(), "sentinel", "t:"),
                    TIMEOUT, null)) {
                assertThat(store.isAvailable()).isFalse();
                assertUnavailable(store);
                sentinel.sentinels().forEach(RedisServerFixture::start);
                awaitAvailable(store);
                assertWorks(store, "sentinel");
            }
        }
    }

    @Test
    void aWrongPasswordStillFailsTheStart() throws Exception {
        try (RedisServerFixture redis = RedisServerFixture.startWithPassword("right")) {
            assertThatThrownBy(() -> RedisStore.start(
                            new RedisPolicy("redis://:wrong@127.0.0.1:" + redis.port(), "standalone", "t:"), TIMEOUT, null))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageStartingWith("cannot connect to Redis at redis://***@127.0.0.1:" + redis.port());
            assertThatThrownBy(() -> RedisStore.start(new RedisPolicy(redis.uri(), "standalone", "t:"), TIMEOUT, null))
                    .as("no password").isInstanceOf(StoreUnavailableException.class);
        }
        assertThat(connectorThreads()).isZero();
    }

    /**
     * The connect grace runs from the TCP connect on, not from when the attempt began: here the
     * proxy's one event loop is busy for three graces while the first attempt would register its
     * channel and connect, as a cold JVM's first use of Lettuce and Netty can hold it, and the start
     * still waits for Redis to refuse the password. (Issue #45's CI failure: the grace ran from
     * Lettuce's bootstrap, before its channel's handlers were made, to Lettuce's
     * {@code ConnectedEvent}, delivered later on another thread: 170–330 ms of a loaded machine's
     * cold start, against a grace of 500 ms; past it the start went on without Redis, and a wrong
     * password was found only after the start.)
     */
    @Test
    void aWrongPasswordFailsTheStartEvenWhenTheConnectItselfIsLate() throws Exception {
        dev.idemproxy.core.net.IoLoops loops = dev.idemproxy.core.net.IoLoops.start(1);
        try (RedisServerFixture redis = RedisServerFixture.startWithPassword("right")) {
            java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(1);
            loops.group().next().execute(() -> {
                busy.countDown();
                try {
                    Thread.sleep(ConnectingRedisStore.CONNECT_GRACE.toMillis() * 3);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            busy.await();
            assertThatThrownBy(() -> RedisStore.start(
                            new RedisPolicy("redis://:wrong@127.0.0.1:" + redis.port(), "standalone", "t:"), TIMEOUT, loops))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageStartingWith("cannot connect to Redis at redis://***@127.0.0.1:" + redis.port());
            assertThat(SharedLoopsProvider.fits(loops)).as("Lettuce connected on the busy loop (" + loops.transport() + ")").isTrue();
        } finally {
            loops.close();
        }
        assertThat(connectorThreads()).isZero();
    }

    @Test
    void aCertificateThatDoesNotVerifyStillFailsTheStart() throws Exception {
        try (TestCertificates certs = TestCertificates.create(); RedisServerFixture redis = RedisServerFixture.startTls(certs)) {
            assertThatThrownBy(() -> RedisStore.start(
                            new RedisPolicy(redis.uri(), "standalone", "t:", certs.unrelatedCaPemFile()), TIMEOUT, null))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("certification path");
        }
    }

    @Test
    void aPlainUriAtATlsPortFailsTheStartSayingToUseRediss() throws Exception {
        try (TestCertificates certs = TestCertificates.create(); RedisServerFixture redis = RedisServerFixture.startTls(certs)) {
            String plain = redis.uri().replace("rediss://", "redis://");
            assertThatThrownBy(() -> RedisStore.start(new RedisPolicy(plain, "standalone", "t:"), TIMEOUT, null))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessage("cannot connect to Redis at " + plain + ": the server at 127.0.0.1:" + redis.port()
                            + " speaks TLS, not plain RESP: use a rediss:// URI");
        }
        assertThat(connectorThreads()).isZero();
    }

    @Test
    void aTlsUriAtAPlainPortFailsTheStartSayingToUseRedis() throws Exception {
        try (RedisServerFixture redis = RedisServerFixture.startStandalone()) {
            String tls = redis.uri().replace("redis://", "rediss://");
            assertThatThrownBy(() -> RedisStore.start(new RedisPolicy(tls, "standalone", "t:"), TIMEOUT, null))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessage("cannot connect to Redis at " + tls + ": the server at 127.0.0.1:" + redis.port()
                            + " speaks plain RESP, not TLS: use a redis:// URI");
        }
    }

    /** An HTTP server, say, where Redis was expected. */
    @Test
    void anEndpointThatDoesNotAnswerInRespFailsTheStart() throws Exception {
        try (LoopbackServer http = LoopbackServer.answering("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")) {
            String uri = "redis://127.0.0.1:" + http.port();
            assertThatThrownBy(() -> RedisStore.start(new RedisPolicy(uri, "standalone", "t:"), TIMEOUT, null))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageStartingWith("cannot connect to Redis at " + uri + ": the server at 127.0.0.1:" + http.port()
                            + " did not answer in RESP (Invalid first byte: 72 (H)")
                    .hasMessageEndingWith("): is it a Redis? (a TLS port wants a rediss:// URI)");
        }
    }

    /**
     * A connection closed before any answer is no proof of a wrong setting: a TCP proxy in front
     * of a Redis that is down does just that. It is retried like a Redis that is away.
     */
    @Test
    void anEndpointThatClosesEveryConnectionAtOnceIsTriedAgain() throws Exception {
        try (LoopbackServer closing = LoopbackServer.answering("");
                Stores store = RedisStore.start(
                        new RedisPolicy("redis://127.0.0.1:" + closing.port(), "standalone", "t:"), TIMEOUT, null)) {
            awaitFailures(store, 2);
            assertThat(store.isAvailable()).isFalse();
            assertThat(warnings()).hasSize(1);
            assertThat(events.list).noneMatch(e -> e.getLevel() == Level.ERROR);
        }
    }

    /**
     * An address that drops SYNs holds an attempt until its connect times out (the command
     * timeout, here 30 s): the start goes on once no TCP connection was made within the grace,
     * long before that (and before the start's wait, made a minute so that only the grace can end it).
     */
    @Test
    void aBlackholedAddressDoesNotHoldTheStartForTheFirstAttempt() throws Exception {
        try (LoopbackBlackhole blackhole = LoopbackBlackhole.open();
                ConnectingRedisStore store = ConnectingRedisStore.start(
                        new RedisPolicy("redis://127.0.0.1:" + blackhole.port(), "standalone", "t:"), Duration.ofSeconds(30),
                        LettuceResources.create(null), ConnectingRedisStore.CONNECT_GRACE, Duration.ofMinutes(1))) {
            assertThat(store.failedAttempts()).as("the first attempt is still connecting").isZero();
            assertThat(store.stores().isAvailable()).isFalse();
            assertUnavailable(store.stores());
            assertThat(infos()).contains("no connection to Redis at redis://127.0.0.1:" + blackhole.port()
                    + " within 500 ms: starting without it; /readyz is 503 until it connects");
        }
        assertThat(connectorThreads()).isZero();
    }

    /** One that accepts and never answers holds an attempt for the command timeout, not Lettuce's minute. */
    @Test
    void aServerThatNeverAnswersEndsTheFirstAttemptWithinTheStartsWait() throws Exception {
        try (LoopbackServer silent = LoopbackServer.silent();
                ConnectingRedisStore store = ConnectingRedisStore.start(
                        new RedisPolicy("redis://127.0.0.1:" + silent.port(), "standalone", "t:"), TIMEOUT,
                        LettuceResources.create(null), ConnectingRedisStore.CONNECT_GRACE, Duration.ofSeconds(30))) {
            assertThat(store.failedAttempts()).as("the first attempt failed before the start went on").isEqualTo(1);
            assertThat(warnings().get(0)).contains("timed out after 2 second(s)");
        }
    }

    @Test
    void closingAStoreThatIsStillConnectingStopsTheAttempts() throws Exception {
        try (RedisServerFixture redis = RedisServerFixture.notStarted()) {
            Stores store = RedisStore.start(new RedisPolicy(redis.uri(), "standalone", "t:"), TIMEOUT, null);
            awaitFailures(store, 2);
            store.close();
            assertThat(connectorThreads()).isZero();
            assertThat(store.isAvailable()).isFalse();
            assertThat(store.records().get(new RecordKey("r", "s", "k")).toCompletableFuture())
                    .failsWithin(Duration.ofSeconds(1)).withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(StoreUnavailableException.class).withMessageContaining("closed");
        }
    }

    /** Fails at once, before anything reaches the network: nothing to wait for. */
    private static void assertUnavailable(Stores store) {
        assertThat(store.records().claim(new RecordKey("r", "s", "early"), "fp", "o", Duration.ofMinutes(1), new ClaimContext("c"))
                .toCompletableFuture()).isCompletedExceptionally()
                .failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(StoreUnavailableException.class).withMessageContaining("not connected yet");
        assertThat(store.deadLetters().deadLetterCount().toCompletableFuture()).isCompletedExceptionally();
    }

    private static void assertWorks(Stores store, String name) throws Exception {
        RecordKey key = new RecordKey("r", "s", name + "-" + System.nanoTime());
        assertThat(await(store.records().claim(key, "fp", "o1", Duration.ofMinutes(1), new ClaimContext("call-o1"))))
                .isEqualTo(ClaimResult.Claimed.FRESH);
        StoredResponse response = new StoredResponse(201, List.of(), new byte[] {4, 2});
        assertThat(await(store.records().complete(key, Claims.owned("o1"), response, 1, Duration.ofMinutes(1)))).isTrue();
        assertThat(await(store.records().claim(key, "fp", "o2", Duration.ofMinutes(1), new ClaimContext("call-o2"))))
                .isEqualTo(new ClaimResult.Completed(response, "call-o1", 1));
    }

    private static <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Polls the store's own state: it connects in the background, with pauses of up to 5 s. */
    private static void awaitAvailable(Stores store) {
        Await.until("the store connected", java.time.Duration.ofSeconds(30), store::isAvailable);
    }

    /** Waits until the store's connector has failed {@code n} times. */
    private static void awaitFailures(Stores store, int n) {
        ConnectingRedisStore connecting = ConnectingRedisStore.of(store);
        Await.until(n + " failed connection attempts", java.time.Duration.ofSeconds(20), () -> connecting.failedAttempts() >= n);
    }

    private List<String> warnings() {
        return events.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage).toList();
    }

    private List<String> infos() {
        return events.list.stream().filter(e -> e.getLevel() == Level.INFO).map(ILoggingEvent::getFormattedMessage).toList();
    }

    private static long connectorThreads() {
        java.util.function.LongSupplier alive = () -> Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("idemproxy-redis-connect") && t.isAlive()).count();
        try {
            Await.until("the connector threads to end", java.time.Duration.ofSeconds(10), () -> alive.getAsLong() == 0);
        } catch (AssertionError stillThere) {
            // the count below says how many are left
        }
        return alive.getAsLong();
    }
}
