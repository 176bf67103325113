package dev.idemproxy.core.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.testing.Claims;
import dev.idemproxy.core.testing.RedisClusterFixture;
import dev.idemproxy.core.testing.RedisServerFixture;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An operator's release ({@code DELETE /dlq/{id}?release=true}, the store's {@code evict}) is not
 * undone by the record's owner: a call's dead letter is written as it settles, beside its end,
 * and while the store fails that end is retried for minutes; were it to land after the release
 * it would find the record absent and write it back, and the next duplicate would replay the
 * outcome the operator released instead of executing. Standalone and a three-master cluster (the
 * fence lives in the record's slot).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisEvictionFenceTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final StoredResponse FAILED = new StoredResponse(502, List.of(), new byte[] {5, 0, 2});
    private RedisServerFixture standalone;
    private RedisClusterFixture cluster;
    private Stores standaloneStore;
    private Stores clusterStore;
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private int n;

    @BeforeAll
    void start() {
        standalone = RedisServerFixture.startStandalone();
        cluster = RedisClusterFixture.start();
        standaloneStore = RedisStore.connect(new RedisPolicy(standalone.uri(), "standalone", "fence:"), Duration.ofSeconds(2));
        clusterStore = RedisStore.connect(new RedisPolicy(cluster.uri(), "cluster", "fence:"), Duration.ofSeconds(2));
    }

    @AfterAll
    void stop() {
        standaloneStore.close();
        clusterStore.close();
        standalone.close();
        cluster.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"standalone", "cluster"})
    void anEndOrRenewalOfTheOwnerAfterTheReleaseIsRefusedAndTheNextDuplicateExecutes(String mode) throws Exception {
        RecordStore store = store(mode);
        RecordKey key = key();
        assertThat(await(store.claim(key, "fp", "o1", LEASE, new ClaimContext("o1")))).isEqualTo(ClaimResult.Claimed.FRESH);

        assertThat(await(store.evict(key, "o1"))).isTrue();
        assertThat(await(store.renew(key, Claims.owned("o1"), LEASE))).as("a renewal on its way").isFalse();
        assertThat(await(store.complete(key, Claims.owned("o1"), FAILED, 3, Duration.ofMinutes(5)))).as("an end retried").isFalse();
        assertThat(await(store.markNotRetained(key, Claims.owned("o1"), 502, 3, Duration.ofMinutes(5)))).isFalse();
        assertThat(await(store.get(key))).isEmpty();
        assertThat(await(store.claim(key, "fp", "o2", LEASE, new ClaimContext("o2")))).as("the next duplicate executes")
                .isEqualTo(ClaimResult.Claimed.FRESH);
    }

    /** The record was lost before the release (Redis restarted empty): its owner is not known, so no owner may write it back. */
    @ParameterizedTest
    @ValueSource(strings = {"standalone", "cluster"})
    void aReleaseOfARecordAlreadyLostStillFencesItsOwner(String mode) throws Exception {
        RecordStore store = store(mode);
        RecordKey key = key();
        assertThat(await(store.claim(key, "fp", "o1", LEASE, new ClaimContext("o1")))).isEqualTo(ClaimResult.Claimed.FRESH);
        flush(mode);

        assertThat(await(store.evict(key, "o1"))).as("nothing there to delete").isFalse();
        assertThat(await(store.complete(key, Claims.owned("o1"), FAILED, 3, Duration.ofMinutes(5)))).isFalse();
        assertThat(await(store.claim(key, "fp", "o2", LEASE, new ClaimContext("o2")))).isEqualTo(ClaimResult.Claimed.FRESH);
    }

    /** The fence names the owner the record had: the next owner's record, should Redis lose it, is still written back. */
    @ParameterizedTest
    @ValueSource(strings = {"standalone", "cluster"})
    void theNextOwnerAfterTheReleaseStillWritesItsLostRecordBack(String mode) throws Exception {
        RecordStore store = store(mode);
        RecordKey key = key();
        assertThat(await(store.claim(key, "fp", "o1", LEASE, new ClaimContext("o1")))).isEqualTo(ClaimResult.Claimed.FRESH);
        assertThat(await(store.evict(key, "o1"))).isTrue();
        assertThat(await(store.claim(key, "fp", "o2", LEASE, new ClaimContext("o2")))).isEqualTo(ClaimResult.Claimed.FRESH);
        deleteRecordOnly(mode, key);

        assertThat(await(store.complete(key, Claims.owned("o2"), FAILED, 1, Duration.ofMinutes(5)))).as("written back").isTrue();
        assertThat(await(store.claim(key, "fp", "o3", LEASE, new ClaimContext("o3"))))
                .isEqualTo(new ClaimResult.Completed(FAILED, "call-o2", 1));
    }

    /**
     * A DLQ replay claims under the released call's id with an owner token of its own: the fence
     * keeps the original execution's late end out of the lost record, and lets the replay's in.
     */
    @ParameterizedTest
    @ValueSource(strings = {"standalone", "cluster"})
    void aReplayOfTheSameCallIdIsNotFencedByTheReleaseOfTheOriginal(String mode) throws Exception {
        RecordStore store = store(mode);
        RecordKey key = key();
        String callId = "c-" + run + "-" + n;
        OwnedClaim original = new OwnedClaim(callId + ".0000000000000001", callId, "fp", Claims.CREATED, Duration.ZERO);
        OwnedClaim replay = new OwnedClaim(callId + ".0000000000000002", callId, "fp", Claims.CREATED, Duration.ZERO);
        assertThat(await(store.claim(key, "fp", original.owner(), LEASE, new ClaimContext(callId)))).isEqualTo(ClaimResult.Claimed.FRESH);
        assertThat(await(store.evict(key, original.owner()))).isTrue();
        assertThat(await(store.claim(key, "fp", replay.owner(), LEASE, new ClaimContext(callId)))).isEqualTo(ClaimResult.Claimed.FRESH);
        deleteRecordOnly(mode, key);

        assertThat(await(store.complete(key, original, FAILED, 3, Duration.ofMinutes(5)))).as("the original, fenced").isFalse();
        assertThat(await(store.complete(key, replay, FAILED, 1, Duration.ofMinutes(5)))).as("the replay, written back").isTrue();
        assertThat(await(store.claim(key, "fp", "o3", LEASE, new ClaimContext("o3"))))
                .isEqualTo(new ClaimResult.Completed(FAILED, callId, 1));
    }

    private RecordStore store(String mode) {
        return (mode.equals("cluster") ? clusterStore : standaloneStore).records();
    }

    private RecordKey key() {
        return new RecordKey("r", "s", run + "-" + n++);
    }

    private void flush(String mode) throws IOException {
        if (mode.equals("cluster")) {
            for (RedisServerFixture node : cluster.nodes()) {
                node.command("FLUSHALL");
            }
        } else {
            standalone.command("FLUSHALL");
        }
    }

    /** Loses the record but not its fence, as an eviction under memory pressure would. */
    private void deleteRecordOnly(String mode, RecordKey key) throws IOException {
        String record = "fence:rec:{" + key.id() + "}";
        if (mode.equals("cluster")) {
            for (RedisServerFixture node : cluster.nodes()) {
                node.command("DEL", record);  // the nodes that do not hold its slot answer MOVED
            }
        } else {
            standalone.command("DEL", record);
        }
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
