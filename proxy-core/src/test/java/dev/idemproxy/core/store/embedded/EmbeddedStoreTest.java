package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.IdempotencyStoreContract;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.testing.Claims;
import dev.idemproxy.core.testing.TestClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedStoreTest extends IdempotencyStoreContract {
    private final TestClock clock = new TestClock();

    @TempDir
    Path dir;
    /** The backend of the stores under test, to look inside it. */
    private EmbeddedStore embedded;

    @Override
    protected Stores newStore() {
        return open(dir);
    }

    /** {@link EmbeddedStore#open(Path, java.time.Clock)}, keeping the backend. */
    private Stores open(Path directory) {
        Stores opened = EmbeddedStore.open(directory, clock);
        embedded = EmbeddedStore.of(opened);
        return opened;
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
        assertThat(await(store.complete(key, Claims.owned("o1"), response, 2, Duration.ofHours(1)))).isTrue();
        store.close();

        use(open(dir));
        assertThat(await(store.claim(key, "fp", "o2", Duration.ofSeconds(30), new ClaimContext("c2"))))
                .isEqualTo(new ClaimResult.Completed(response, "c1", 2));
    }

    @Test
    void aSecondOpenOfTheSameDirectoryFailsClearly() {
        assertThatThrownBy(() -> EmbeddedStore.open(dir, clock))
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
        RecordKey key = new RecordKey("r", "s", "k");
        await(store.claim(key, "fp", "o1", Duration.ofSeconds(30), new ClaimContext("c1")));
        await(store.complete(key, Claims.owned("o1"), new StoredResponse(204, List.of(), new byte[0]), 1, Duration.ofMinutes(1)));
        await(receipts.putReceipt(new Receipt("c1", "b1", "k", "r", "SUCCESS", null, 204, 1, clock.instant(), null),
                Duration.ofMinutes(1)));
        assertThat(await(embedded.purgeExpired())).isZero();
        clock.advance(Duration.ofMinutes(2));
        assertThat(await(embedded.purgeExpired())).isEqualTo(2);
        assertThat(await(embedded.purgeExpired())).isZero();
    }

    @Test
    void purgeDeletesExpiredTaskCountersAndARechargedCounterKeepsOnlyItsLatestExpiry() throws Exception {
        await(taskBudgets.chargeTaskRetry("t@1", 5, Duration.ofMinutes(1)));
        clock.advance(Duration.ofSeconds(30));
        await(taskBudgets.chargeTaskRetry("t@1", 5, Duration.ofMinutes(1)));
        clock.advance(Duration.ofSeconds(45));
        assertThat(await(embedded.purgeExpired())).isZero();
        assertThat(await(taskBudgets.taskRetriesUsed("t@1"))).isEqualTo(2L);
        clock.advance(Duration.ofMinutes(1));
        assertThat(await(embedded.purgeExpired())).isEqualTo(1);
        assertThat(await(taskBudgets.taskRetriesUsed("t@1"))).isZero();
    }

    @Test
    void taskCountersSurviveCloseAndReopen() throws Exception {
        await(taskBudgets.chargeTaskRetry("t@1", 5, Duration.ofHours(1)));
        store.close();
        use(open(dir));
        assertThat(await(taskBudgets.taskRetriesUsed("t@1"))).isEqualTo(1L);
    }

    /**
     * The purge's pace follows what it finds: the full pause after a slice of live entries, none
     * after a slice that had all expired, in proportion between (a fixed pause capped deletions
     * below the rate a busy route writes entries at, and the file grew by gigabytes within minutes).
     */
    @Test
    void theSweepPausesLessTheMoreOfASliceHadExpired() {
        long full = EmbeddedPurge.SWEEP_PAUSE_MILLIS;
        assertThat(EmbeddedPurge.pauseAfter(full, 4096, 0)).isEqualTo(full);
        assertThat(EmbeddedPurge.pauseAfter(full, 4096, 4096)).isZero();
        assertThat(EmbeddedPurge.pauseAfter(full, 4096, 1024)).isEqualTo(full * 3 / 4);
        assertThat(EmbeddedPurge.pauseAfter(full, 4096, 3072)).isEqualTo(full / 4);
        assertThat(EmbeddedPurge.pauseAfter(full, 0, 0)).isEqualTo(full);  // an empty slice: the map ended
        assertThat(EmbeddedPurge.pauseAfter(0, 4096, 0)).isZero();       // an unpaced sweep stays unpaced
    }

    /**
     * A purge sweep in slices of 7 entries (each a turn of the store thread) deletes exactly the
     * expired records, receipts and counters among 200 of each, whatever slice they fall in, and
     * leaves the live ones readable; calls made between the slices are served.
     */
    @Test
    void aSweepInSlicesDeletesWhatExpiredAndKeepsTheRest() throws Exception {
        StoredResponse response = new StoredResponse(200, List.of(), "ok".getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < 200; i++) {
            Duration ttl = i % 2 == 0 ? Duration.ofMinutes(1) : Duration.ofHours(1);
            RecordKey key = new RecordKey("r", "s", "k" + i);
            await(store.claim(key, "fp", "o" + i, Duration.ofSeconds(30), new ClaimContext("c" + i)));
            await(store.complete(key, Claims.owned("o" + i), response, 1, ttl));
            await(receipts.putReceipt(new Receipt("c" + i, "biz" + (i % 3), "k" + i, "r", "SUCCESS", null, 200, 1,
                    clock.instant(), clock.instant()), ttl));
            await(taskBudgets.chargeTaskRetry("t" + i + "@1", 5, ttl));
        }
        clock.advance(Duration.ofMinutes(2));
        java.util.concurrent.CompletableFuture<Integer> sweep = embedded.sweep(7, Long.MAX_VALUE).toCompletableFuture();
        RecordKey fresh = new RecordKey("r", "s", "during-the-sweep");
        assertThat(await(store.claim(fresh, "fp", "o", Duration.ofSeconds(30), new ClaimContext("cf"))))
                .isInstanceOf(ClaimResult.Claimed.class);
        // 100 expired records, 100 receipts (each with its index entry) and 100 counters
        assertThat(sweep.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(300);
        for (int i = 0; i < 200; i++) {
            boolean live = i % 2 == 1;
            assertThat(await(store.get(new RecordKey("r", "s", "k" + i))).isPresent()).as("record %d", i).isEqualTo(live);
            assertThat(await(receipts.receipt("c" + i)).isPresent()).as("receipt %d", i).isEqualTo(live);
            assertThat(await(taskBudgets.taskRetriesUsed("t" + i + "@1"))).isEqualTo(live ? 1L : 0L);
        }
        assertThat(await(receipts.receiptsByBizId("biz1", 1000))).extracting(Receipt::callId)
                .allSatisfy(id -> assertThat(Integer.parseInt(id.substring(1)) % 6).isEqualTo(1)).hasSize(34);
        assertThat(await(embedded.purgeExpired())).isZero();
        assertThat(embedded.mvStore().openMap(EmbeddedFile.RECEIPTS_BY_BIZ).size()).isEqualTo(100);
    }

    /**
     * A sweep whose slices get no time at all still gets on, {@value EmbeddedPurge#SWEEP_CLOCK_EVERY}
     * entries a turn, and deletes exactly what expired: a slice cut short by its time resumes at
     * the next key, in the middle of a map or at the start of the next one.
     */
    @Test
    void aSweepCutShortByItsTimeResumesWhereItStopped() throws Exception {
        StoredResponse response = new StoredResponse(200, List.of(), "ok".getBytes(StandardCharsets.UTF_8));
        int n = 3 * EmbeddedPurge.SWEEP_CLOCK_EVERY + 5;  // a map ends mid-slice and exactly on one
        for (int i = 0; i < n; i++) {
            Duration ttl = i % 3 == 0 ? Duration.ofHours(1) : Duration.ofMinutes(1);
            RecordKey key = new RecordKey("r", "s", "k" + i);
            await(store.claim(key, "fp", "o" + i, Duration.ofSeconds(30), new ClaimContext("c" + i)));
            await(store.complete(key, Claims.owned("o" + i), response, 1, ttl));
        }
        for (int i = 0; i < 2 * EmbeddedPurge.SWEEP_CLOCK_EVERY; i++) {
            await(taskBudgets.chargeTaskRetry("t" + i + "@1", 5, i % 2 == 0 ? Duration.ofMinutes(1) : Duration.ofHours(1)));
        }
        clock.advance(Duration.ofMinutes(2));

        int expired = n - (n + 2) / 3 + EmbeddedPurge.SWEEP_CLOCK_EVERY;
        assertThat(await(embedded.sweep(4096, 0))).isEqualTo(expired);
        for (int i = 0; i < n; i++) {
            assertThat(await(store.get(new RecordKey("r", "s", "k" + i))).isPresent()).as("record %d", i).isEqualTo(i % 3 == 0);
        }
        for (int i = 0; i < 2 * EmbeddedPurge.SWEEP_CLOCK_EVERY; i++) {
            assertThat(await(taskBudgets.taskRetriesUsed("t" + i + "@1"))).as("counter %d", i).isEqualTo(i % 2 == 0 ? 0L : 1L);
        }
        assertThat(await(embedded.purgeExpired())).isZero();
    }

    /**
     * A file of the first layout (untyped maps and an expiry index, as written until 2026-12-01)
     * opens with everything in it: a completed call is replayed, an in-flight one is still in
     * flight, receipts are found by call and business id, a counter keeps its count; the old maps
     * are gone, and the next open finds nothing left to move.
     */
    @Test
    void aFileOfTheFirstLayoutOpensWithItsRecordsReceiptsAndCounters() throws Exception {
        stores.close();
        stores = null;
        Path old = dir.resolve("first-layout");
        java.nio.file.Files.createDirectories(old);
        StoredResponse response = new StoredResponse(201, List.of(new StoredHeader("A", "1")), "made".getBytes(StandardCharsets.UTF_8));
        java.time.Instant now = clock.instant();
        RecordKey done = new RecordKey("r", "s", "done");
        RecordKey running = new RecordKey("r", "s", "running");
        Receipt receipt = new Receipt("c1", "order-7", "done", "r", "SUCCESS", null, 201, 1, now, now);
        org.h2.mvstore.MVStore mv = new org.h2.mvstore.MVStore.Builder()
                .fileName(old.resolve(EmbeddedFile.FILE_NAME).toString()).open();
        org.h2.mvstore.MVMap<String, byte[]> records = mv.openMap("records");
        records.put(done.id(), dev.idemproxy.core.store.StoreCodec.encodeRecord(new dev.idemproxy.core.store.IdempotencyRecord(
                dev.idemproxy.core.store.IdempotencyRecord.State.COMPLETED, "o1", "c1", "fp", now.plusSeconds(30), now, now,
                now.plus(Duration.ofHours(1)), 1, 201, response)));
        records.put(running.id(), dev.idemproxy.core.store.StoreCodec.encodeRecord(new dev.idemproxy.core.store.IdempotencyRecord(
                dev.idemproxy.core.store.IdempotencyRecord.State.IN_FLIGHT, "o2", "c2", "fp", now.plusSeconds(30), now, null,
                now.plus(Duration.ofHours(1)), 0, 0, null)));
        byte[] encoded = dev.idemproxy.core.store.StoreCodec.encodeReceipt(receipt);
        byte[] value = java.nio.ByteBuffer.allocate(8 + encoded.length).putLong(now.plus(Duration.ofHours(1)).toEpochMilli())
                .put(encoded).array();
        mv.<String, byte[]>openMap("receipts").put("c1", value);
        mv.<String, String>openMap("receiptsByBiz").put("order-7\0" + receipt.sortKey(), "c1");
        mv.<String, byte[]>openMap("tasks").put("t@1", java.nio.ByteBuffer.allocate(16).putLong(3)
                .putLong(now.plus(Duration.ofHours(1)).toEpochMilli()).array());
        mv.<String, String>openMap("expiry").put("0000000000000001 R " + done.id(), "");
        mv.close();

        use(open(old));
        assertThat(await(store.claim(done, "fp", "o3", Duration.ofSeconds(30), new ClaimContext("c3"))))
                .isEqualTo(new ClaimResult.Completed(response, "c1", 1));
        assertThat(await(store.claim(running, "fp", "o3", Duration.ofSeconds(30), new ClaimContext("c3"))))
                .isInstanceOf(ClaimResult.InFlight.class);
        assertThat(await(receipts.receipt("c1"))).contains(receipt);
        assertThat(await(receipts.receiptsByBizId("order-7", 10))).containsExactly(receipt);
        assertThat(await(taskBudgets.taskRetriesUsed("t@1"))).isEqualTo(3L);
        org.h2.mvstore.MVStore reopened = embedded.mvStore();
        assertThat(reopened.getMapNames()).doesNotContain("records", "receipts", "receiptsByBiz", "tasks", "expiry")
                .contains(EmbeddedFile.RECORDS, EmbeddedFile.RECEIPTS);
        store.close();
        use(open(old));
        assertThat(await(store.claim(done, "fp", "o4", Duration.ofSeconds(30), new ClaimContext("c4"))))
                .isEqualTo(new ClaimResult.Completed(response, "c1", 1));
    }

    /** The background purge runs by itself every purgeInterval, slice after slice, until the pass is over. */
    @Test
    void theBackgroundPurgeSweepsEveryIntervalInSlicesUntilNothingExpiredIsLeft() throws Exception {
        store.close();
        use(EmbeddedStore.open(dir.resolve("often"), clock, Duration.ofMillis(100)));
        EmbeddedStore often = EmbeddedStore.of(stores);
        StoredResponse response = new StoredResponse(200, List.of(), new byte[0]);
        int n = 10_000;  // three slices of 4,096
        for (int i = 0; i < n; i++) {
            RecordKey key = new RecordKey("r", "s", "k" + i);
            store.claim(key, "fp", "o" + i, Duration.ofSeconds(30), new ClaimContext("c" + i));
            store.complete(key, Claims.owned("o" + i), response, 1, Duration.ofMinutes(1));
        }
        await(store.get(new RecordKey("r", "s", "k" + (n - 1))));
        org.h2.mvstore.MVMap<String, byte[]> records = often.mvStore().openMap(EmbeddedFile.RECORDS);
        assertThat(records.size()).isEqualTo(n);
        clock.advance(Duration.ofMinutes(2));
        Await.until("the sweeps to remove every expired record", java.time.Duration.ofSeconds(20), () -> records.size() == 0);
        assertThat(records.size()).as("records left after the sweeps").isZero();
    }
}
