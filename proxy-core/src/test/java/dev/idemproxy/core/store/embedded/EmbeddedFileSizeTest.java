package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.testing.Claims;
import dev.idemproxy.core.testing.TestClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file reuses the space of old commits: it does not grow by every commit's chunk. */
class EmbeddedFileSizeTest {
    @TempDir
    Path dir;

    @Test
    void theDefaultsKeepOldChunksTenSeconds() {
        Stores stores = EmbeddedStore.open(dir, Clock.systemUTC());
        try {
            assertThat(EmbeddedStore.of(stores).mvStore().getRetentionTime()).isEqualTo(10_000);  // MVStore's default: 45 000
        } finally {
            stores.close();
        }
    }

    /**
     * Commits for four seconds with a half-second retention: the file stays well below what was
     * written, because chunks older than the retention are overwritten. With MVStore's default
     * retention (45 s) nothing would be reused yet and the file would be as large as the writes.
     */
    @Test
    void theFileReusesTheSpaceOfCommitsOlderThanTheRetention() throws Exception {
        EmbeddedStore store = EmbeddedStore.backend(dir, Clock.systemUTC(), Ticker.system(), Duration.ofMinutes(1), 500);
        Stores stores = store.stores();
        try {
            StoredResponse response = new StoredResponse(200, List.of(new StoredHeader("Content-Type", "application/json")),
                    new byte[1024]);
            Duration ttl = Duration.ofHours(24);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
            for (int n = 0; System.nanoTime() < end; n++) {
                RecordKey key = new RecordKey("r", "s", "key-" + n);
                String callId = "call-" + n;
                done(stores.records().claim(key, "fp", callId, Duration.ofSeconds(30), new ClaimContext(callId)));
                done(stores.records().complete(key, Claims.owned(callId), response, 1, ttl));
                done(stores.receipts().putReceipt(new Receipt(callId, null, key.key(), "r", "SUCCESS", null, 200, 1,
                        Instant.now(), Instant.now()), ttl));
            }
            Map<String, String> info = new HashMap<>();
            store.mvStore().populateInfo(info::put);
            long written = Long.parseLong(info.get("info.FILE_WRITE_BYTES"));
            long size = Files.size(dir.resolve(EmbeddedFile.FILE_NAME));
            assertThat(size).as("file size after writing %d bytes", written).isLessThan(written / 2);
        } finally {
            stores.close();
        }
    }

    /**
     * The file never gets shorter: once the purge has freed its tail, MVStore would truncate it
     * inside a later commit, holding every commit meanwhile (half a second for a large file on a
     * file system with online discard); the store keeps the length and reuses the space.
     */
    @Test
    void theFileKeepsItsLengthWhenItsTailIsFreed() throws Exception {
        TestClock clock = new TestClock(Instant.parse("2026-12-01T00:00:00Z"));
        EmbeddedStore store = EmbeddedStore.backend(dir, clock, Ticker.system(), Duration.ofHours(1), 1);
        Stores stores = store.stores();
        try {
            StoredResponse response = new StoredResponse(200, List.of(), new byte[4096]);
            for (int n = 0; n < 2000; n++) {
                RecordKey key = new RecordKey("r", "s", "key-" + n);
                done(stores.records().claim(key, "fp", "o" + n, Duration.ofSeconds(30), new ClaimContext("c" + n)));
                done(stores.records().complete(key, Claims.owned("o" + n), response, 1, Duration.ofMinutes(1)));
            }
            Path file = dir.resolve(EmbeddedFile.FILE_NAME);
            long peak = Files.size(file);
            clock.advance(Duration.ofMinutes(2));
            assertThat(done(store.purgeExpired())).isEqualTo(2000);
            long smallest = peak;
            for (int n = 0; n < 50; n++) {  // commits after the dead chunks' retention (1 ms): the tail is free
                Await.realTime(java.time.Duration.ofMillis(2));
                RecordKey key = new RecordKey("r", "s", "after-" + n);
                done(stores.records().claim(key, "fp", "a" + n, Duration.ofSeconds(30), new ClaimContext("a" + n)));
                smallest = Math.min(smallest, Files.size(file));
            }
            assertThat(smallest).as("file size after the purge; %d bytes at its peak", peak).isGreaterThanOrEqualTo(peak);
        } finally {
            stores.close();
        }
    }

    private static <T> T done(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
