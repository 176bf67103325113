package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.testing.Await;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredRequest;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.testing.Claims;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Not a test: drives a real embedded store with a fixed mix of calls at a fixed rate and prints the
 * file's size and chunk count every 10 s, to watch whether the file levels off.
 *
 * <pre>java -cp ... dev.idemproxy.core.store.embedded.EmbeddedFileGrowth DIR [seconds] [callsPerSecond] [ttl]</pre>
 *
 * <p>Per call: a claim of a new key, a receipt, a completion with a 1 KiB body, a second receipt;
 * one call in 20 also adds a dead letter with a 512-byte request body.
 */
public final class EmbeddedFileGrowth {
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 90;
        int rate = args.length > 2 ? Integer.parseInt(args[2]) : 90;
        Duration ttl = args.length > 3 ? Duration.parse(args[3]) : Duration.ofHours(24);
        Files.createDirectories(dir);
        Files.deleteIfExists(dir.resolve(EmbeddedFile.FILE_NAME));
        Stores stores = EmbeddedStore.open(dir, Clock.systemUTC(), Duration.ofSeconds(60));
        EmbeddedStore store = EmbeddedStore.of(stores);
        AtomicLong calls = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        Random random = new Random(42);
        byte[] body = new byte[1024];
        byte[] requestBody = new byte[512];
        random.nextBytes(body);
        random.nextBytes(requestBody);
        StoredResponse response = new StoredResponse(200,
                List.of(new StoredHeader("Content-Type", "application/json"), new StoredHeader("Content-Length", "1024")), body);
        ScheduledExecutorService driver = Executors.newSingleThreadScheduledExecutor();
        long periodNanos = 1_000_000_000L / rate;
        driver.scheduleAtFixedRate(() -> {
            long n = calls.incrementAndGet();
            String callId = UUID.randomUUID().toString();
            RecordKey key = new RecordKey("plain", "scope" + (n % 7), UUID.randomUUID().toString());
            Instant start = Instant.now();
            Receipt inFlight = new Receipt(callId, "order-" + n, key.key(), key.route(), "IN_FLIGHT", null, 0, 0, start, null);
            stores.records().claim(key, "fp" + n, callId, Duration.ofSeconds(30), new ClaimContext(callId))
                    .thenCompose(c -> stores.receipts().putReceipt(inFlight, ttl))
                    .thenCompose(v -> stores.records().complete(key, Claims.owned(callId), response, 1, ttl))
                    .thenCompose(ok -> stores.receipts().putReceipt(new Receipt(callId, "order-" + n, key.key(), key.route(),
                            "SUCCESS", null, 200, 1, start, Instant.now()), ttl))
                    .thenCompose(v -> n % 20 != 0 ? stores.receipts().putReceipt(inFlight, ttl)
                            : stores.deadLetters().addDeadLetter(new DeadLetter(UUID.randomUUID().toString(), callId, null, null, key,
                                    "upstream_5xx", 503, 3, Instant.now(),
                                    new StoredRequest("POST", "/tickets", List.of(new StoredHeader("Content-Type", "application/json")), requestBody))))
                    .whenComplete((v, e) -> {
                        if (e != null) {
                            errors.incrementAndGet();
                        }
                    });
        }, 0, periodNanos, TimeUnit.NANOSECONDS);
        long t0 = System.nanoTime();
        System.out.printf("rate=%d/s ttl=%s retention=%dms%n", rate, ttl, store.mvStore().getRetentionTime());
        System.out.println("t_s calls errors file_MB chunks fill% chunksFill% pagesLive/pages heapUsed_MB | liveChunks liveChunk_MB liveBytes_MB old60Live old60_MB deadChunks");
        for (int t = 10; t <= seconds; t += 10) {
            Await.realTime(Duration.ofNanos(Math.max(0, t0 + t * 1_000_000_000L - System.nanoTime())));  // a sample every 10 s
            Map<String, String> info = info(store);
            Runtime rt = Runtime.getRuntime();
            System.out.printf("%d %d %d %.1f %s %s %s %s/%s %d%n", t, calls.get(), errors.get(),
                    Files.size(dir.resolve(EmbeddedFile.FILE_NAME)) / 1e6,
                    info.get("info.CHUNK_COUNT"), info.get("info.FILL_RATE"), info.get("info.CHUNKS_FILL_RATE"),
                    info.get("info.PAGE_COUNT_LIVE"), info.get("info.PAGE_COUNT"),
                    (rt.totalMemory() - rt.freeMemory()) >> 20);
            System.out.println("   | " + chunkStats(store));
        }
        driver.shutdown();
        driver.awaitTermination(10, TimeUnit.SECONDS);
        store.close();
        System.out.printf("closed: file_MB=%.1f%n", Files.size(dir.resolve(EmbeddedFile.FILE_NAME)) / 1e6);
    }

    private static Map<String, String> info(EmbeddedStore store) throws Exception {
        Map<String, String> info = new HashMap<>();
        store.mvStore().populateInfo(info::put);
        return info;
    }

    /** Reads MVStore's chunk table by reflection (diagnostics only). */
    private static String chunkStats(EmbeddedStore store) throws Exception {
        Object fs = store.mvStore().getFileStore();
        java.lang.reflect.Method m = org.h2.mvstore.FileStore.class.getDeclaredMethod("getChunks");
        m.setAccessible(true);
        Map<?, ?> chunks = (Map<?, ?>) m.invoke(fs);
        Class<?> c = org.h2.mvstore.Chunk.class;
        java.lang.reflect.Field live = c.getDeclaredField("pageCountLive");
        live.setAccessible(true);
        long now = System.currentTimeMillis() - store.mvStore().getFileStore().getCreationTime();
        long liveChunks = 0, liveBlocks = 0, liveBytes = 0, old = 0, oldBlocks = 0, dead = 0;
        for (Object o : List.copyOf(chunks.values())) {
            org.h2.mvstore.Chunk<?> ch = (org.h2.mvstore.Chunk<?>) o;
            if (live.getInt(ch) > 0) {
                liveChunks++;
                liveBlocks += ch.len;
                liveBytes += ch.maxLenLive;
                if (now - ch.time > 60_000) {
                    old++;
                    oldBlocks += ch.len;
                }
            } else {
                dead++;
            }
        }
        return String.format("%d %.1f %.1f %d %.1f %d", liveChunks, liveBlocks * 4096 / 1e6, liveBytes / 1e6, old,
                oldBlocks * 4096 / 1e6, dead);
    }
}
