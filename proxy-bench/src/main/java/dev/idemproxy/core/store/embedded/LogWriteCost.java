package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.StorePolicy.EmbeddedSync;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.util.Ticker;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the embedded store writes to its log per protected call, and what its own threads spend on
 * it: a {@code main}, since bytes per call are a count, not a time. It runs {@code rounds} rounds
 * of {@code calls} protected calls' store work (a claim that writes the PROCESSING receipt, then
 * a completion with an 84-byte-request-sized response and its final receipt, as the engine does)
 * from {@code callers} concurrent callers, after {@code prefill} calls, and prints per round the
 * log bytes written per call, the store threads' CPU and allocation per call (ThreadMXBean), and
 * the live records the index holds with its heap bytes. Arguments as {@code name=value}:
 * {@code prefill} (100000), {@code calls} (100000), {@code rounds} (3), {@code callers} (32),
 * {@code sync} (interval), {@code keys} ({@code uuid} or {@code seq}). Run it with
 * {@code java -cp proxy-bench/target/idemproxy-bench.jar dev.idemproxy.core.store.embedded.LogWriteCost}.
 */
public final class LogWriteCost {
    private static final String FINGERPRINT = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    private static final StoredResponse RESPONSE = new StoredResponse(200, List.of(new StoredHeader("Server", "nginx"),
            new StoredHeader("Date", "Fri, 04 Dec 2026 20:47:28 GMT"), new StoredHeader("Content-Type", "application/json"),
            new StoredHeader("Content-Length", "27")), "{\"ok\":true,\"id\":\"t-000001\"}".getBytes(StandardCharsets.UTF_8));

    private LogWriteCost() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>(Map.of("prefill", "100000", "calls", "100000", "rounds", "3", "callers", "32",
                "sync", "interval", "keys", "uuid"));
        for (String arg : args) {
            a.put(arg.substring(0, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
        }
        System.out.println("# " + a);
        Path dir = Files.createTempDirectory("idemproxy-log-cost");
        EmbeddedSync sync = EmbeddedSync.valueOf(a.get("sync").toUpperCase());
        EmbeddedStore backend = EmbeddedStore.open(dir, Clock.systemUTC(), Ticker.system(), sync, EmbeddedStore.SEGMENT_BYTES,
                EmbeddedStore.Seams.real());
        RecordStore store = backend.stores().records();
        int callers = Integer.parseInt(a.get("callers"));
        boolean uuid = a.get("keys").equals("uuid");
        run(store, Integer.parseInt(a.get("prefill")), callers, uuid);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int r = 1; r <= Integer.parseInt(a.get("rounds")); r++) {
            int calls = Integer.parseInt(a.get("calls"));
            long bytes0 = backend.writtenBytes();
            long[] cpu0 = storeThreads(threads);
            long t0 = System.nanoTime();
            run(store, calls, callers, uuid);
            long t1 = System.nanoTime();
            long[] cpu1 = storeThreads(threads);
            System.out.printf("round %d: %d calls in %.2f s; log %.0f bytes/call; store threads %.1f µs CPU and %.0f bytes allocated"
                    + " per call; index: %d records, %d receipts, %.1f MB%n", r, calls, (t1 - t0) / 1e9,
                    (backend.writtenBytes() - bytes0) / (double) calls, (cpu1[0] - cpu0[0]) / 1e3 / calls,
                    (cpu1[1] - cpu0[1]) / (double) calls, backend.state().records.size(), backend.state().receipts.size(),
                    (backend.state().records.bytes() + backend.state().receipts.bytes() + backend.state().biz.bytes()) / 1e6);
        }
        backend.stores().close();
        try (var files = Files.list(dir)) {
            files.forEach(f -> f.toFile().delete());
        }
        Files.delete(dir);
    }

    /** The CPU nanoseconds and allocated bytes of the store's own threads so far. */
    private static long[] storeThreads(com.sun.management.ThreadMXBean threads) {
        long cpu = 0;
        long alloc = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("idemproxy-embedded")) {
                cpu += threads.getThreadCpuTime(t.getId());
                alloc += threads.getThreadAllocatedBytes(t.getId());
            }
        }
        return new long[] {cpu, alloc};
    }

    private static void run(RecordStore store, int calls, int callers, boolean uuid) throws InterruptedException {
        AtomicLong next = new AtomicLong();
        CountDownLatch done = new CountDownLatch(callers);
        String nonce = Long.toHexString(System.nanoTime());
        for (int c = 0; c < callers; c++) {
            call(store, next, calls, done, nonce, c, uuid);
        }
        done.await();
    }

    private static void call(RecordStore store, AtomicLong next, int calls, CountDownLatch done, String nonce, int caller,
            boolean uuid) {
        long n = next.getAndIncrement();
        if (n >= calls) {
            done.countDown();
            return;
        }
        String key = uuid ? UUID.randomUUID().toString() : "cpu-" + nonce + "-" + caller + "-" + n;
        String callId = Long.toHexString(System.nanoTime()) + Long.toHexString(n) + "0000000000000000".substring(0, 8);
        RecordKey rk = new RecordKey("idem", "635f6c441a405f7afbc5862f2f3724e3", "c:" + key);
        String owner = callId + ".edfa698631762bdc";
        Instant now = Instant.now();
        Duration ttl = Duration.ofHours(1);
        Receipt processing = new Receipt(callId, null, key, "idem", "PROCESSING", null, 0, 0, now, null);
        ClaimContext ctx = new ClaimContext(callId, ttl, new ReceiptPut(processing, ttl));
        store.claim(rk, FINGERPRINT, owner, Duration.ofSeconds(30), ctx)
                .thenCompose(claimed -> store.complete(rk, OwnedClaim.of(owner, FINGERPRINT, ctx, now), RESPONSE, 1, ttl,
                        new ReceiptPut(new Receipt(callId, null, key, "idem", "SUCCESS", "executed", 200, 1, now, Instant.now()), ttl)))
                .whenComplete((ok, err) -> {
                    if (err != null) {
                        err.printStackTrace();
                    }
                    call(store, next, calls, done, nonce, caller, uuid);
                });
    }
}
