package dev.idemproxy.core.store.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.IdempotencyStore;
import dev.idemproxy.core.store.IdempotencyStoreContract;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.testing.ManualClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedStoreTest extends IdempotencyStoreContract {
    private final ManualClock clock = new ManualClock();

    @TempDir
    Path dir;

    @Override
    protected IdempotencyStore newStore() {
        return EmbeddedIdempotencyStore.open(dir, clock);
    }

    @Override
    protected Duration shortLease() {
        return Duration.ofSeconds(30);
    }

    @Override
    protected void elapse(Duration d) {
        clock.advance(d);
    }

    @Test
    void aCompletedRecordSurvivesCloseAndReopen() throws Exception {
        RecordKey key = new RecordKey("r", "s", "k");
        StoredResponse response = new StoredResponse(200, List.of(new StoredHeader("A", "1")),
                "hello".getBytes(StandardCharsets.UTF_8));
        await(store.claim(key, "fp", "o1", Duration.ofSeconds(30), new ClaimContext("c1")));
        assertThat(await(store.complete(key, "o1", response, 2, Duration.ofHours(1)))).isTrue();
        store.close();

        store = EmbeddedIdempotencyStore.open(dir, clock);
        assertThat(await(store.claim(key, "fp", "o2", Duration.ofSeconds(30), new ClaimContext("c2"))))
                .isEqualTo(new ClaimResult.Completed(response, "c1", 2));
    }

    @Test
    void aSecondOpenOfTheSameDirectoryFailsClearly() {
        assertThatThrownBy(() -> EmbeddedIdempotencyStore.open(dir, clock))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessage("data directory " + dir + " is in use by another process");
    }

    @Test
    void operationsAfterCloseFailAsUnavailable() {
        store.close();
        assertThat(store.isAvailable()).isFalse();
        assertThat(store.get(new RecordKey("r", "s", "k")).toCompletableFuture())
                .failsWithin(Duration.ofSeconds(5))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(StoreUnavailableException.class);
    }

    @Test
    void purgeDeletesExpiredRecordsAndReceiptsFromTheFile() throws Exception {
        EmbeddedIdempotencyStore embedded = (EmbeddedIdempotencyStore) store;
        RecordKey key = new RecordKey("r", "s", "k");
        await(store.claim(key, "fp", "o1", Duration.ofSeconds(30), new ClaimContext("c1")));
        await(store.complete(key, "o1", new StoredResponse(204, List.of(), new byte[0]), 1, Duration.ofMinutes(1)));
        await(store.putReceipt(new Receipt("c1", "b1", "k", "r", "SUCCESS", null, 204, 1, clock.instant(), null),
                Duration.ofMinutes(1)));
        assertThat(await(embedded.purgeExpired())).isZero();
        clock.advance(Duration.ofMinutes(2));
        assertThat(await(embedded.purgeExpired())).isEqualTo(2);
        assertThat(await(embedded.purgeExpired())).isZero();
    }

    @Test
    void purgeDeletesExpiredTaskCountersAndARechargedCounterKeepsOnlyItsLatestExpiry() throws Exception {
        EmbeddedIdempotencyStore embedded = (EmbeddedIdempotencyStore) store;
        await(store.chargeTaskRetry("t@1", 5, Duration.ofMinutes(1)));
        clock.advance(Duration.ofSeconds(30));
        await(store.chargeTaskRetry("t@1", 5, Duration.ofMinutes(1)));
        clock.advance(Duration.ofSeconds(45));
        assertThat(await(embedded.purgeExpired())).isZero();
        assertThat(await(store.taskRetriesUsed("t@1"))).isEqualTo(2L);
        clock.advance(Duration.ofMinutes(1));
        assertThat(await(embedded.purgeExpired())).isEqualTo(1);
        assertThat(await(store.taskRetriesUsed("t@1"))).isZero();
    }

    @Test
    void taskCountersSurviveCloseAndReopen() throws Exception {
        await(store.chargeTaskRetry("t@1", 5, Duration.ofHours(1)));
        store.close();
        store = EmbeddedIdempotencyStore.open(dir, clock);
        assertThat(await(store.taskRetriesUsed("t@1"))).isEqualTo(1L);
    }
}
