package dev.idemproxy.core.store.redis;

import dev.idemproxy.core.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.store.ClaimAnswerLostException;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.testing.RedisServerExtension;
import dev.idemproxy.core.testing.ReplyDroppingRelay;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A claim Redis wrote but whose answer was lost on the way back (through a relay that drops the
 * reply and closes the connection): a native claim reports it as {@link ClaimAnswerLostException},
 * and {@link RedisRecords#releaseLostClaim} frees the key; a claim run as the script (it
 * may have been a takeover) is not reported so, and the release never touches another owner's
 * record.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisLostClaimTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    @RegisterExtension
    static final RedisServerExtension REDIS = RedisServerExtension.standalone();
    private ReplyDroppingRelay relay;
    private Stores viaRelay;
    private Stores direct;
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private int n;


    @BeforeEach
    void connect() throws Exception {
        relay = new ReplyDroppingRelay(REDIS.server().port());
        viaRelay = RedisStore.connect(new RedisPolicy("redis://127.0.0.1:" + relay.port(), "standalone", "lost:"),
                Duration.ofSeconds(2));
        direct = RedisStore.connect(new RedisPolicy(REDIS.server().uri(), "standalone", "lost:"), Duration.ofSeconds(2));
    }

    @AfterEach
    void disconnect() throws Exception {
        viaRelay.close();
        direct.close();
        relay.close();
    }

    @Test
    void aNativeClaimWrittenWithoutAnAnswerIsReleasedOnceRedisAnswersAgain() throws Exception {
        RecordKey key = key();
        relay.dropNextReply();
        Throwable failure = failureOf(viaRelay.records().claim(key, "fp", "owner-a", LEASE, new ClaimContext("owner-a", LEASE)));
        assertThat(relay.dropped()).isEqualTo(1);
        assertThat(failure).isInstanceOf(ClaimAnswerLostException.class);
        IdempotencyRecord written = await(direct.records().get(key)).orElseThrow();  // Redis did write it
        assertThat(written.owner()).isEqualTo("owner-a");
        assertThat(written.state()).isEqualTo(IdempotencyRecord.State.IN_FLIGHT);

        viaRelay.records().releaseLostClaim(key, "owner-a", (ClaimAnswerLostException) failure);

        assertThat(eventuallyGone(key)).as("the lost claim was released").isTrue();
        assertThat(await(direct.records().claim(key, "fp", "owner-b", LEASE, new ClaimContext("owner-b", LEASE))))
                .isEqualTo(ClaimResult.Claimed.FRESH);
    }

    @Test
    void aClaimRunAsTheScriptIsNotReportedAsLostAndKeepsItsRecord() throws Exception {
        ((RedisRecords) viaRelay.records()).scriptClaimsOnly();  // the script may take a record over: its lost answer must not be undone
        RecordKey first = key();  // loads the script, so that the dropped reply is the claim's own
        assertThat(await(viaRelay.records().claim(first, "fp", "owner-a", LEASE, new ClaimContext("owner-a", LEASE))))
                .isEqualTo(ClaimResult.Claimed.FRESH);
        RecordKey key = key();
        relay.dropNextReply();
        Throwable failure = failureOf(viaRelay.records().claim(key, "fp", "owner-a", LEASE, new ClaimContext("owner-a", LEASE)));
        assertThat(relay.dropped()).isEqualTo(1);
        assertThat(failure).isInstanceOf(StoreUnavailableException.class).isNotInstanceOf(ClaimAnswerLostException.class);
        Await.holdsFor("the claim's record, not released as lost", Duration.ofMillis(500), () -> owner(key).equals("owner-a"));
    }

    @Test
    void theReleaseOfALostClaimLeavesAnotherOwnersRecord() throws Exception {
        RecordKey key = key();
        assertThat(await(direct.records().claim(key, "fp", "owner-x", LEASE, new ClaimContext("owner-x", LEASE))))
                .isEqualTo(ClaimResult.Claimed.FRESH);
        viaRelay.records().releaseLostClaim(key, "owner-a",
                new ClaimAnswerLostException("lost", new RuntimeException("test"), Duration.ofSeconds(5)));
        // The first release is sent at once; Redis is up.
        Await.holdsFor("another owner's record, left alone", Duration.ofSeconds(1), () -> owner(key).equals("owner-x"));
    }

    @Test
    void aClaimRefusedWhileDisconnectedIsNotReportedAsLost() throws Exception {
        assertThat(await(viaRelay.records().claim(key(), "fp", "owner-a", LEASE, new ClaimContext("owner-a", LEASE))))
                .isEqualTo(ClaimResult.Claimed.FRESH);
        relay.close();  // Redis unreachable: Lettuce refuses commands until it reconnects
        Await.until("the store to see Redis gone", Duration.ofSeconds(10), () -> !viaRelay.isAvailable());
        Throwable failure = failureOf(viaRelay.records().claim(key(), "fp", "owner-a", LEASE, new ClaimContext("owner-a", LEASE)));
        assertThat(failure).isInstanceOf(StoreUnavailableException.class).isNotInstanceOf(ClaimAnswerLostException.class)
                .hasMessageContaining("not connected");
    }

    private RecordKey key() {
        return new RecordKey("route-" + run, "", "lost-" + (++n));
    }

    private boolean eventuallyGone(RecordKey key) {
        try {
            Await.value("the record gone", Duration.ofSeconds(10), () -> await(direct.records().get(key)), java.util.Optional::isEmpty);
            return true;
        } catch (AssertionError stillThere) {
            return false;
        }
    }

    private String owner(RecordKey key) {
        try {
            return await(direct.records().get(key)).map(IdempotencyRecord::owner).orElse("");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static Throwable failureOf(CompletionStage<?> stage) {
        try {
            stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError("the claim neither answered nor failed", e);
        }
        throw new AssertionError("the claim was answered, although its reply was dropped");
    }
}
