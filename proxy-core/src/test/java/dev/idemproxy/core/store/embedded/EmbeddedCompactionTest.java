package dev.idemproxy.core.store.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.testing.TestClock;
import dev.idemproxy.core.util.Ticker;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded store's compaction: MVStore's own is off; ours rewrites sparse chunks, a bounded amount a turn. */
class EmbeddedCompactionTest {
    @TempDir
    Path dir;

    @Test
    void aTurnRewritesAQuarterOfWhatWasWrittenAndAtLeastTheFloor() {
        assertThat(EmbeddedCompaction.budget(0)).isEqualTo(EmbeddedCompaction.FLOOR_BYTES);
        assertThat(EmbeddedCompaction.budget(-5)).isEqualTo(EmbeddedCompaction.FLOOR_BYTES);
        assertThat(EmbeddedCompaction.budget(1_000_000)).isEqualTo(EmbeddedCompaction.FLOOR_BYTES);
        assertThat(EmbeddedCompaction.budget(40_000_000)).isEqualTo(10_000_000);
        assertThat(EmbeddedCompaction.budget(Long.MAX_VALUE)).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void mvStoresOwnHousekeepingIsOff() {
        Stores stores = EmbeddedStore.open(dir, new TestClock());
        try {
            assertThat(EmbeddedStore.of(stores).file().fileStore().housekeepingFillRate()).isZero();
        } finally {
            stores.close();
        }
    }

    /**
     * Records written in large commits, then most of them deleted, leaf by leaf: every chunk ends
     * up mostly dead, held by the few leaves nothing changed. Turns of the compaction move those
     * leaves into new chunks, each writing about its budget (the turn every second may do some of
     * it), until the chunks are dense.
     */
    @Test
    void turnsMakeSparseChunksDenseABoundedAmountAtATime() throws Exception {
        TestClock clock = new TestClock(Instant.parse("2026-12-01T00:00:00Z"));
        EmbeddedStore store = EmbeddedStore.backend(dir, clock, Ticker.system(), Duration.ofHours(1), 1);
        Stores stores = store.stores();
        try {
            String padding = "x".repeat(500);
            int n = 9600;
            java.util.List<CompletionStage<?>> writes = new java.util.ArrayList<>();
            for (int i = 0; i < n; i++) {  // queued at once: group commits of many records each
                writes.add(stores.records().claim(key(i, padding), "fp", "o" + i, Duration.ofHours(1), new ClaimContext("c" + i)));
            }
            for (CompletionStage<?> w : writes) {
                done(w);
            }
            writes.clear();
            for (int i = 0; i < n; i++) {
                if ((i / 48) % 10 != 0) {  // nine leaves in ten changed (MVStore's pages hold 48 keys)
                    writes.add(stores.records().evict(key(i, padding)));
                }
            }
            for (CompletionStage<?> w : writes) {
                done(w);
            }
            for (int i = 0; i < 2; i++) {  // commits: the deletions, then the chunks' occupancy updated
                done(stores.records().claim(new RecordKey("r", "s", "after-" + i), "fp", "a" + i, Duration.ofSeconds(30),
                        new ClaimContext("a" + i)));
            }
            int before = rewritableFillRate(store);
            assertThat(before).as("rewritable chunks' fill rate after the purge").isLessThan(EmbeddedCompaction.TARGET_FILL_RATE);

            int fill = before;
            int turns = 0;
            for (; turns < 200 && fill < EmbeddedCompaction.TARGET_FILL_RATE; turns++) {
                long written = store.file().writtenBytes();
                int budget = done(store.compactOnce());
                long wrote = store.file().writtenBytes() - written;
                // the pages rewritten (about the budget) plus the commit's own: parents, maps' roots, chunk header
                assertThat(wrote).as("bytes written by turn %d, its budget %d", turns, budget)
                        .isLessThan(budget + (long) EmbeddedCompaction.FLOOR_BYTES);
                fill = rewritableFillRate(store);
            }
            assertThat(fill).as("rewritable chunks' fill rate after %d turns (%d%% before)", turns, before)
                    .isGreaterThanOrEqualTo(EmbeddedCompaction.TARGET_FILL_RATE);
            assertThat(done(stores.records().get(key(0, padding)))).isPresent();
            assertThat(done(stores.records().get(key(n - 480, padding)))).isPresent();  // a leaf nothing changed: kept
        } finally {
            stores.close();
        }
    }

    private static RecordKey key(int i, String padding) {
        return new RecordKey("r", "s", String.format("key-%05d-%s", i, padding));
    }

    /** How much of the chunks that may be rewritten is live, in per cent (MVStore's own figure). */
    private static int rewritableFillRate(EmbeddedStore store) {
        java.util.Map<String, String> info = new java.util.HashMap<>();
        store.mvStore().populateInfo(info::put);
        return Integer.parseInt(info.get("info.CHUNKS_FILL_RATE_RW"));
    }

    private static <T> T done(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
}
