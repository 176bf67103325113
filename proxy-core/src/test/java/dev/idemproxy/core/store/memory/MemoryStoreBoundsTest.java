package dev.idemproxy.core.store.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredRequest;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.testing.Claims;
import dev.idemproxy.core.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The memory store's bounds: by count, by estimated heap, and never at the cost of a call in flight. */
class MemoryStoreBoundsTest {
    private static final Duration LONG = Duration.ofMinutes(5);
    private static final long MIB = 1024 * 1024;
    private final TestClock clock = new TestClock();
    private MemoryStore backend;
    private Stores stores;

    @AfterEach
    void close() {
        if (stores != null) {
            stores.close();
        }
    }

    private void open(long maxEntries, long maxBytes) {
        backend = MemoryStore.backend(maxEntries, maxBytes, clock);
        stores = backend.stores();
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static RecordKey key(int i) {
        return new RecordKey("tickets", "scope", "key-" + i);
    }

    private ClaimResult claim(int i, String owner) throws Exception {
        return await(stores.records().claim(key(i), "fp", owner, LONG, new ClaimContext("call-" + owner)));
    }

    private void completeNew(int i, int bodyBytes) throws Exception {
        assertThat(claim(i, "o" + i)).isInstanceOf(ClaimResult.Claimed.class);
        StoredResponse response = new StoredResponse(201, List.of(new StoredHeader("Content-Type", "application/json")),
                new byte[bodyBytes]);
        assertThat(await(stores.records().complete(key(i), Claims.owned("o" + i), response, 1, LONG))).isTrue();
    }

    @Test
    void callsInFlightAreNeverEvictedHoweverManyThereAre() throws Exception {
        open(10, MemoryStore.MIN_BYTES);
        for (int i = 0; i < 500; i++) {
            assertThat(claim(i, "first-" + i)).isInstanceOf(ClaimResult.Claimed.class);
        }
        backend.cleanUp();
        // Had one been evicted, its duplicate would claim a fresh key and run the call again.
        for (int i = 0; i < 500; i++) {
            assertThat(claim(i, "dup-" + i)).as("duplicate of call %d", i).isInstanceOf(ClaimResult.InFlight.class);
        }
        assertThat(backend.recordCount()).isEqualTo(500);
    }

    @Test
    void endedRecordsStayWithinHalfOfMaxBytes() throws Exception {
        open(1_000_000, MIB);
        for (int i = 0; i < 300; i++) {
            completeNew(i, 10 * 1024);
        }
        backend.cleanUp();
        // half of 1 MiB holds at most 51 records of 10 KiB bodies (each weighs a little more)
        assertThat(backend.recordCount()).isBetween(30L, 51L);
    }

    @Test
    void endedRecordsStayWithinMaxEntriesWhenBytesAllowMore() throws Exception {
        open(10, 64 * MIB);
        for (int i = 0; i < 100; i++) {
            completeNew(i, 16);
        }
        backend.cleanUp();
        assertThat(backend.recordCount()).isBetween(1L, 10L);
    }

    @Test
    void receiptsStayWithinAQuarterOfMaxBytes() throws Exception {
        open(1_000_000, MIB);
        String longReason = "r".repeat(1000);
        for (int i = 0; i < 2000; i++) {
            Receipt r = new Receipt("call-" + i, null, "key-" + i, "tickets", "FAILED", longReason, 504, 4,
                    Instant.parse("2030-01-01T00:00:00Z"), Instant.parse("2030-01-01T00:00:01Z"));
            await(stores.receipts().putReceipt(r, LONG));
        }
        backend.cleanUp();
        // a quarter of 1 MiB holds at most 262,144 / 1,040 = 252 receipts with a 1,000-character reason
        assertThat(backend.receiptCount()).isBetween(100L, 252L);
    }

    @Test
    void deadLettersDropTheOldestPastAQuarterOfMaxBytes() throws Exception {
        open(1_000_000, MIB);
        for (int i = 0; i < 100; i++) {
            await(stores.deadLetters().addDeadLetter(deadLetter(i, 20 * 1024)));
        }
        long kept = await(stores.deadLetters().deadLetterCount());
        // a quarter of 1 MiB holds at most 12 entries with 20 KiB bodies
        assertThat(kept).isBetween(8L, 12L);
        assertThat(await(stores.deadLetters().deadLetter("dl-99"))).isPresent();
        assertThat(await(stores.deadLetters().deadLetter("dl-" + (100 - kept)))).isPresent();
        assertThat(await(stores.deadLetters().deadLetter("dl-" + (99 - kept)))).isEmpty();
        assertThat(await(stores.deadLetters().deleteDeadLetter("dl-99"))).isTrue();
        await(stores.deadLetters().addDeadLetter(deadLetter(100, 20 * 1024)));
        assertThat(await(stores.deadLetters().deadLetterCount())).as("a deletion frees its bytes").isEqualTo(kept);
    }

    @Test
    void oneDeadLetterLargerThanItsShareIsStillKept() throws Exception {
        open(1_000_000, MIB);
        await(stores.deadLetters().addDeadLetter(deadLetter(1, 512 * 1024)));
        assertThat(await(stores.deadLetters().deadLetter("dl-1"))).isPresent();
    }

    @Test
    void aByteBoundUnderOneMebibyteIsRefused() {
        assertThatThrownBy(() -> MemoryStore.create(10, MIB - 1, clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxBytes 1048575 (expected: >= 1048576)");
    }

    @Test
    void theDefaultByteBoundIsAQuarterOfTheHeapInWholeMebibytes() {
        long d = MemoryStore.defaultMaxBytes();
        assertThat(d % MIB).isZero();
        assertThat(d).isLessThanOrEqualTo(Runtime.getRuntime().maxMemory() / 4).isGreaterThan(Runtime.getRuntime().maxMemory() / 4 - MIB);
    }

    private DeadLetter deadLetter(int i, int bodyBytes) {
        return new DeadLetter("dl-" + i, "call-" + i, null, null, key(i), "ambiguous-outcome", 504, 4,
                Instant.parse("2030-01-01T00:00:00Z").plusSeconds(i),
                new StoredRequest("POST", "/api/tickets", List.of(new StoredHeader("Content-Type", "application/json")),
                        new byte[bodyBytes]));
    }
}
