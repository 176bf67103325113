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
        assertThat(await(store.complete(key, Claims.owned("o1", "fp", "c1"), response, 2, Duration.ofHours(1)))).isTrue();
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

    /**
     * The compaction of the oldest segments keeps exactly what is live: of 300 calls over many
     * small segments, half with a short ttl, a tenth released, every record, receipt (by call and
     * business id), task counter and dead letter still live is there after the oldest segments
     * are compacted away, and again after a reopen reads the compacted log back; the expired and
     * released ones are gone and do not come back.
     */
    @Test
    void compactingTheOldestSegmentsKeepsWhatIsLiveAndNothingElseAcrossAReopen() throws Exception {
        store.close();
        Path small = dir.resolve("small");
        use(openSmall(small));
        StoredResponse response = new StoredResponse(200, List.of(new StoredHeader("A", "1")), "ok".getBytes(StandardCharsets.UTF_8));
        int n = 300;
        for (int i = 0; i < n; i++) {
            Duration ttl = i % 2 == 0 ? Duration.ofMinutes(1) : Duration.ofHours(1);
            RecordKey key = new RecordKey("r", "s", "k" + i);
            Receipt processing = new Receipt("c" + i, "biz" + (i % 3), "k" + i, "r", "PROCESSING", null, 0, 0, clock.instant(), null);
            await(store.claim(key, "fp", "o" + i, Duration.ofSeconds(30), new ClaimContext("c" + i, ttl,
                    new dev.idemproxy.core.store.ReceiptPut(processing, ttl))));
            if (i % 10 == 3) {
                await(store.release(key, "o" + i));
            } else {
                Receipt done = new Receipt("c" + i, "biz" + (i % 3), "k" + i, "r", "SUCCESS", null, 200, 1, clock.instant(),
                        clock.instant());
                await(store.complete(key, Claims.owned("o" + i, "fp", "c" + i), response, 1, ttl,
                        new dev.idemproxy.core.store.ReceiptPut(done, ttl)));
            }
            await(taskBudgets.chargeTaskRetry("t" + i + "@1", 5, ttl));
            if (i % 50 == 0) {
                await(deadLetters.addDeadLetter(new dev.idemproxy.core.store.DeadLetter("d" + i, "c" + i, null, null, key,
                        "retries-exhausted", 503, 4, clock.instant(), new dev.idemproxy.core.store.StoredRequest("POST", "/x",
                        List.of(), new byte[0]))));
            }
        }
        await(deadLetters.deleteDeadLetter("d100"));
        clock.advance(Duration.ofMinutes(2));
        EmbeddedStore backend = EmbeddedStore.of(stores);
        int before = backend.log().segments().size();
        assertThat(before).as("segments written").isGreaterThan(10);
        for (int i = 0; i < before - 1; i++) {
            await(backend.compactOldest());
        }
        assertThat(backend.log().segments().size()).as("segments left").isLessThan(before);
        expectLiveOnly(n);
        store.close();
        use(openSmall(small));
        expectLiveOnly(n);
    }

    private void expectLiveOnly(int n) throws Exception {
        for (int i = 0; i < n; i++) {
            boolean live = i % 2 == 1;
            RecordKey key = new RecordKey("r", "s", "k" + i);
            boolean released = i % 10 == 3;
            assertThat(await(store.get(key)).isPresent()).as("record %d", i).isEqualTo(live && !released);
            java.util.Optional<Receipt> r = await(receipts.receipt("c" + i));
            assertThat(r.isPresent()).as("receipt %d", i).isEqualTo(live);
            if (live) {
                assertThat(r.get().status()).isEqualTo(released ? "PROCESSING" : "SUCCESS");
            }
            assertThat(await(taskBudgets.taskRetriesUsed("t" + i + "@1"))).as("counter %d", i).isEqualTo(live ? 1L : 0L);
        }
        assertThat(await(receipts.receiptsByBizId("biz1", 1000))).extracting(Receipt::callId)
                .allSatisfy(id -> assertThat(Integer.parseInt(id.substring(1)) % 2).isEqualTo(1)).hasSize(50);
        assertThat(await(deadLetters.deadLetterCount())).isEqualTo(5L);
        assertThat(await(deadLetters.deadLetter("d100"))).isEmpty();
        assertThat(await(deadLetters.deadLetter("d150"))).isPresent();
    }

    /** The backend over {@code directory} with segments of 4 KiB, so a few hundred calls fill many. */
    private Stores openSmall(Path directory) {
        Stores opened = EmbeddedStore.open(directory, clock, dev.idemproxy.core.util.Ticker.system(),
                dev.idemproxy.core.store.StorePolicy.EmbeddedSync.NONE, 4096, EmbeddedStore.Seams.real()).stores();
        embedded = EmbeddedStore.of(opened);
        return opened;
    }

    @Test
    void taskCountersSurviveCloseAndReopen() throws Exception {
        await(taskBudgets.chargeTaskRetry("t@1", 5, Duration.ofHours(1)));
        store.close();
        use(open(dir));
        assertThat(await(taskBudgets.taskRetriesUsed("t@1"))).isEqualTo(1L);
    }

    /**
     * A store file of the first layout (untyped maps and an expiry index, as written until
     * 2026-12-01) is moved into the log with everything in it: a completed call is replayed, an
     * in-flight one is still in flight, receipts are found by call and business id, a counter
     * keeps its count; the old file is renamed, and the next open finds nothing left to move.
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
                .fileName(old.resolve(MvStoreImport.FILE_NAME).toString()).open();
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
        assertThat(old.resolve(MvStoreImport.FILE_NAME)).doesNotExist();
        assertThat(old.resolve(MvStoreImport.MOVED_NAME)).exists();
        store.close();
        use(open(old));
        assertThat(await(store.claim(done, "fp", "o4", Duration.ofSeconds(30), new ClaimContext("c4"))))
                .isEqualTo(new ClaimResult.Completed(response, "c1", 1));
    }
}
