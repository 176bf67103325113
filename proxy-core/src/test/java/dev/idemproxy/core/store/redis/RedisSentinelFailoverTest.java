package dev.idemproxy.core.store.redis;

import dev.idemproxy.core.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.testing.Claims;
import dev.idemproxy.core.testing.RedisSentinelFixture;
import dev.idemproxy.core.testing.RedisServerFixture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Forced Sentinel failovers under a connected store. What holds: the store follows Sentinel's
 * switch to the new master on its own (it listens to the Sentinels' events, so it does not wait
 * for the old master to be demoted), claims succeed there, and a record that had reached the
 * replica before the failover is still there and replayed. What does not: Redis replicates
 * asynchronously and the store does not {@code WAIT}, so a record written in the last moment
 * before a failover may be lost (its duplicate would execute again); these tests wait for
 * replication first on purpose.
 */
class RedisSentinelFailoverTest {
    private static final Duration LONG = Duration.ofMinutes(5);

    @Test
    void afterAFailoverClaimsSucceedOnTheNewMasterAndAReplicatedRecordIsReplayed() throws Exception {
        try (RedisSentinelFixture sentinel = RedisSentinelFixture.start();
                Stores store = connect(sentinel)) {
            RecordKey before = new RecordKey("r", "s", "before-failover");
            StoredResponse response = new StoredResponse(201, List.of(new StoredHeader("Content-Type", "text/plain")),
                    "made once".getBytes(StandardCharsets.UTF_8));
            assertThat(await(store.records().claim(before, "fp", "o1", LONG, new ClaimContext("call-1"))))
                    .isInstanceOf(ClaimResult.Claimed.class);
            assertThat(await(store.records().complete(before, Claims.owned("o1"), response, 1, LONG))).isTrue();
            sentinel.awaitReplicated();
            RedisServerFixture oldMaster = sentinel.master();

            sentinel.failover();
            sentinel.awaitOldMasterDemoted(oldMaster);

            RedisServerFixture newMaster = sentinel.master();
            assertThat(newMaster.port()).isNotEqualTo(oldMaster.port());
            ClaimResult replay = eventually(() -> store.records().claim(before, "fp", "o2", LONG, new ClaimContext("call-2")));
            assertThat(replay).isInstanceOf(ClaimResult.Completed.class);
            assertThat(((ClaimResult.Completed) replay).response()).isEqualTo(response);
            assertThat(((ClaimResult.Completed) replay).callId()).isEqualTo("call-1");

            RecordKey after = new RecordKey("r", "s", "after-failover");
            assertThat(eventually(() -> store.records().claim(after, "fp", "o3", LONG, new ClaimContext("call-3"))))
                    .isInstanceOf(ClaimResult.Claimed.class);
            assertThat(newMaster.command("EXISTS", ((RedisRecords) store.records()).recordKey(after))).isEqualTo(":1");
            assertThat(store.isAvailable()).isTrue();
        }
    }

    /**
     * The old master stays reachable and is never demoted (Sentinel cannot send it REPLICAOF, as in
     * a partition, or as in the seconds before Sentinel reconfigures it after a planned failover):
     * the store must still move its writes to the master Sentinel names, not keep claiming on a
     * node whose data the rest of the fleet no longer sees.
     */
    @Test
    void writesMoveToTheNewMasterEvenWhileTheOldOneStillAcceptsThem() throws Exception {
        try (RedisSentinelFixture sentinel = RedisSentinelFixture.start(List.of(
                        "--rename-command", "SLAVEOF", "", "--rename-command", "REPLICAOF", ""));
                Stores store = connect(sentinel)) {
            RedisServerFixture oldMaster = sentinel.master();
            assertThat(await(store.records().claim(new RecordKey("r", "s", "warm-up"), "fp", "o", LONG, new ClaimContext("c"))))
                    .isInstanceOf(ClaimResult.Claimed.class);

            sentinel.failover();

            RedisServerFixture newMaster = sentinel.master();
            assertThat(newMaster.port()).isNotEqualTo(oldMaster.port());
            int[] n = {0};
            // The store refreshes its topology on its own schedule: claim until a claim lands on the new master.
            Await.until("a claim on the new master " + newMaster.port() + " after Sentinel switched", Duration.ofSeconds(20), () -> {
                RecordKey key = new RecordKey("r", "s", "after-switch-" + n[0]++);
                try {
                    ClaimResult claimed = eventually(() -> store.records().claim(key, "fp", "o", LONG, new ClaimContext("c")));
                    assertThat(claimed).isInstanceOf(ClaimResult.Claimed.class);
                    return ":1".equals(newMaster.command("EXISTS", ((RedisRecords) store.records()).recordKey(key)));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(oldMaster.info("replication", "role")).as("the old master was never demoted").isEqualTo("master");
        }
    }

    @Test
    void aMasterOutageWithoutFailoverFailsOperationsAsUnavailableAndItsReturnRecovers() throws Exception {
        try (RedisSentinelFixture sentinel = RedisSentinelFixture.start();
                Stores store = connect(sentinel)) {
            RecordKey key = new RecordKey("r", "s", "outage");
            assertThat(await(store.records().get(key))).isEmpty();
            assertThat(store.isAvailable()).isTrue();
            RedisServerFixture master = sentinel.master();
            master.stop();  // for less than Sentinel's down-after-milliseconds: no failover
            try {
                assertThat(store.records().get(key).toCompletableFuture())
                        .failsWithin(Duration.ofSeconds(10))
                        .withThrowableOfType(ExecutionException.class)
                        .withCauseInstanceOf(StoreUnavailableException.class);
                // Lettuce may fail the command a moment before it marks the connection closed.
                Await.until("isAvailable false while the master is down", Duration.ofSeconds(5), () -> !store.isAvailable());
            } finally {
                master.start();
            }
            assertThat(eventually(() -> store.records().get(key))).isEmpty();
            assertThat(store.isAvailable()).isTrue();
        }
    }

    private static Stores connect(RedisSentinelFixture sentinel) {
        return RedisStore.connect(new RedisPolicy(sentinel.uri(), "sentinel", "test:"), Duration.ofSeconds(5));
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /**
     * The operation's result once the store answers: while Lettuce reconnects (asking Sentinel for
     * the new master), operations fail fast as unavailable, so they are tried again for up to 20 s.
     */
    private static <T> T eventually(Supplier<CompletionStage<T>> op) {
        Object[] result = {null};
        Await.until("the store to answer (Lettuce reconnects on its own schedule)", Duration.ofSeconds(20), () -> {
            try {
                result[0] = await(op.get());
                return true;
            } catch (ExecutionException e) {
                if (e.getCause() instanceof StoreUnavailableException) {
                    return false;
                }
                throw new IllegalStateException(e.getCause());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        @SuppressWarnings("unchecked")
        T t = (T) result[0];
        return t;
    }
}
