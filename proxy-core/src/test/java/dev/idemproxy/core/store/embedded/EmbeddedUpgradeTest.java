package dev.idemproxy.core.store.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.testing.TestClock;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data directory written by the release before the log (commit 6563059, H2 MVStore; how it was
 * made: src/test/resources/embedded-upgrade/6563059/README.md) opens with every record intact,
 * moved into the log once: the completed calls replay, the call in flight when that proxy was
 * killed is not a fresh key, the dead letter, the receipts by call and business id and the task
 * counter are there; the old file is renamed and a second open finds nothing to move.
 */
class EmbeddedUpgradeTest {
    private static final Instant WRITTEN = Instant.parse("2026-12-04T20:45:30Z");

    @TempDir
    Path dir;

    @Test
    void aDirectoryOfTheMvStoreReleaseOpensWithEveryRecordIntact() throws Exception {
        try (InputStream in = getClass().getResourceAsStream("/embedded-upgrade/6563059/" + MvStoreImport.FILE_NAME)) {
            Files.copy(in, dir.resolve(MvStoreImport.FILE_NAME));
        }
        TestClock clock = new TestClock(WRITTEN.plusSeconds(60));
        Stores stores = EmbeddedStore.open(dir, clock);
        try {
            expectEverything(stores);
        } finally {
            stores.close();
        }
        assertThat(dir.resolve(MvStoreImport.FILE_NAME)).doesNotExist();
        assertThat(dir.resolve(MvStoreImport.MOVED_NAME)).exists();
        stores = EmbeddedStore.open(dir, clock);
        try {
            expectEverything(stores);
        } finally {
            stores.close();
        }
    }

    private static void expectEverything(Stores stores) throws Exception {
        // every call of the fixture has the same scope (the route's, empty): its hash is in the dead letter's record key
        scopeHash = await(stores.deadLetters().deadLetters(null, 1)).entries().get(0).recordKey().scopeHash();
        ClaimResult done = await(stores.records().claim(key("k-done-1"), fingerprintOf(stores, "k-done-1"), "later",
                Duration.ofSeconds(30), new ClaimContext("later")));
        assertThat(done).isInstanceOf(ClaimResult.Completed.class);
        ClaimResult.Completed completed = (ClaimResult.Completed) done;
        assertThat(completed.callId()).isEqualTo("01a242cdf39379a5b984ae600196b441");
        assertThat(completed.response().status()).isEqualTo(201);
        assertThat(new String(completed.response().body(), StandardCharsets.UTF_8)).isEqualTo("{\"order\":\"o-1\"}");
        assertThat(await(stores.records().get(key("k-done-2")))).get()
                .satisfies(r -> assertThat(r.state()).isEqualTo(dev.idemproxy.core.store.IdempotencyRecord.State.COMPLETED));
        assertThat(await(stores.records().get(key("k-flight-1")))).get()
                .satisfies(r -> assertThat(r.state()).isEqualTo(dev.idemproxy.core.store.IdempotencyRecord.State.IN_FLIGHT));

        List<DeadLetter> dlq = await(stores.deadLetters().deadLetters(null, 10)).entries();
        assertThat(dlq).singleElement().satisfies(d -> {
            assertThat(d.callId()).isEqualTo("01a242cdfbadc10e610ec0c5ed557a76");
            assertThat(d.bizId()).isEqualTo("B-2");
            assertThat(d.taskId()).isEqualTo("T-1");
            assertThat(d.recordKey()).isEqualTo(key("k-fail-1"));
            assertThat(d.attempts()).isEqualTo(3);
        });
        assertThat(await(stores.receipts().receiptsByBizId("B-1", 10))).extracting(Receipt::status).containsExactly("SUCCESS");
        assertThat(await(stores.receipts().receiptsByBizId("B-3", 10))).extracting(Receipt::status).containsExactly("PROCESSING");
        assertThat(await(stores.receipts().receiptsByBizId("B-2", 10))).singleElement()
                .satisfies(r -> assertThat(r.status()).isNotEqualTo("PROCESSING"));
        assertThat(await(stores.receipts().receipt("01a242cdfdf9d4b618e0d9a1fc56677e"))).isPresent();
        long window = Instant.parse("2026-12-04T20:45:25Z").toEpochMilli() / Duration.ofHours(1).toMillis();
        assertThat(await(stores.taskBudgets().taskRetriesUsed("T-1@" + window))).isEqualTo(2L);
    }

    /** The stored fingerprint of {@code key}'s record (the engine's hash of its body), so that a claim matches it. */
    private static String fingerprintOf(Stores stores, String key) throws Exception {
        return await(stores.records().get(key(key))).orElseThrow().fingerprint();
    }

    private static String scopeHash;

    private static RecordKey key(String key) {
        return new RecordKey("orders", scopeHash, "c:" + key);  // a client's key, as the engine stores it
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get();
    }
}
