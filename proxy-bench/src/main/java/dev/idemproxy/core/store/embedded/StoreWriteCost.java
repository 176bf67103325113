package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.call.CallId;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.store.Stores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.h2.mvstore.FileStore;
import org.h2.mvstore.MVStore;

/**
 * What the embedded store writes to its file per protected call, and how much CPU its threads
 * spend on it: a {@code main}, not a JMH benchmark, because the figure that matters (bytes per
 * call) is a count, not a time.
 *
 * <p>It opens the store in a fresh directory, fills it with {@code prefill} protected calls, then
 * runs {@code rounds} rounds of {@code calls} more with {@code callers} concurrent callers. A call
 * is the store work the engine does for a protected POST with a new key: a claim that writes the
 * PROCESSING receipt, then a completion with the stored response that writes the final receipt
 * (as a protected call's {@code Recording} and {@code CallRecorder} do), each awaited. Per round it prints:
 * <ul>
 *   <li>the bytes MVStore wrote to the file per call (its FileStore's write counter: deterministic
 *       for a given sequence of commits, unaffected by other load on the machine) and the chunks
 *       (commits) per call;</li>
 *   <li>those bytes by map: every chunk written during the round is found in MVStore's chunk table
 *       while it lives (a chunk lives at least the retention time, 10 s) and its table of contents
 *       read; a page's length is the distance to the next page's offset. "chunk overhead" is the
 *       chunk header, table of contents, footer and the padding to a 4 KiB block;</li>
 *   <li>the CPU time of the store's threads per call (ThreadMXBean: the store thread, the sync
 *       thread and MVStore's background, serialisation and save threads), and the callers' and
 *       the process's, for comparison. Noisy on a shared machine: repeat, alternate builds.</li>
 * </ul>
 *
 * <p>Arguments, as {@code name=value}: {@code prefill} (600000), {@code calls} (100000),
 * {@code rounds} (3), {@code callers} (32), {@code keys} ({@code uuid}: a random key per call, as
 * agents send; {@code seq}: {@code pp-NONCE-CALLER-COUNTER}, as bench/wrk/protected-post.lua
 * sends from as many wrk threads as callers; {@code ordered}: the same from one wrk thread, as
 * bench/run.sh runs it), {@code biz} (0; 1: every call has a business id, so receiptsByBiz is written too),
 * {@code replays} (100000: after the rounds, that many reads of records picked at random among
 * all, among the last 10,000 calls' and of one record, with the store threads' CPU and the file
 * bytes read per replay), {@code dir} (none: a new temporary directory, deleted at the end; a
 * path: that directory, kept, so that a file can be filled by one build and opened by another).
 * In this package for {@link EmbeddedStore#of} and {@link EmbeddedStore#mvStore()}. Run it with
 * {@code java -cp proxy-bench/target/idemproxy-bench.jar dev.idemproxy.core.store.embedded.StoreWriteCost}.
 */
public final class StoreWriteCost {
    private static final Duration LEASE = Duration.ofSeconds(30);
    /** Longer than any run, so nothing expires and the purge deletes (writes) nothing. */
    private static final Duration TTL = Duration.ofHours(1);
    private static final String SCOPE = "0123456789abcdef0123456789abcdef";
    /** A request fingerprint as the engine makes them: 64 hex digits. */
    private static final String FINGERPRINT = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    private static final String[] STORE_THREADS = {"idemproxy-embedded", "H2-", "MVStore"};

    private final RecordStore store;
    private final MVStore mv;
    private final FileStore<?> fileStore;
    private final StoredResponse response;
    /** uuid, seq or ordered: see the class comment. */
    private final String keyShape;
    private final boolean biz;
    private final String nonce = Long.toString(System.nanoTime(), 36);
    private final AtomicLong counter = new AtomicLong();
    /** The client keys of the calls made, in the order of their claims, for the replays. */
    private final String[] keys;
    private final AtomicLong counted = new AtomicLong();
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    /** The highest CPU time seen per thread id, with the thread's kind (store, caller, other). */
    private final Map<Long, long[]> cpu = new HashMap<>();
    private final ChunkCensus census;

    private StoreWriteCost(Stores stores, String keyShape, boolean biz, int allCalls) {
        this.keys = new String[allCalls];
        this.store = stores.records();
        this.mv = EmbeddedStore.of(stores).mvStore();
        this.fileStore = mv.getFileStore();
        this.census = new ChunkCensus(mv);
        this.keyShape = keyShape;
        this.biz = biz;
        this.response = new StoredResponse(200, List.of(new StoredHeader("Server", "nginx/1.24.0"),
                new StoredHeader("Date", "Thu, 03 Dec 2026 10:00:00 GMT"), new StoredHeader("Content-Type", "application/json"),
                new StoredHeader("Content-Length", "11")), "{\"ok\":true}".getBytes(StandardCharsets.UTF_8));
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>(Map.of("prefill", "600000", "calls", "100000", "rounds", "3", "callers", "32",
                "keys", "uuid", "biz", "0",
                "replays", "100000", "dir", ""));
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq < 0 || !a.containsKey(arg.substring(0, eq))) {
                throw new IllegalArgumentException("unknown argument " + arg + " (expected: name=value, names " + a.keySet() + ")");
            }
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        int prefill = Integer.parseInt(a.get("prefill"));
        int calls = Integer.parseInt(a.get("calls"));
        int rounds = Integer.parseInt(a.get("rounds"));
        int callers = Integer.parseInt(a.get("callers"));
        int replays = Integer.parseInt(a.get("replays"));
        if (!List.of("uuid", "seq", "ordered").contains(a.get("keys"))) {
            throw new IllegalArgumentException("keys=" + a.get("keys") + " (expected: uuid, seq or ordered)");
        }
        System.out.println("# " + a);
        boolean keep = !a.get("dir").isEmpty();
        Path dir = keep ? Path.of(a.get("dir")) : Files.createTempDirectory("idemproxy-write-cost");
        try {
            long opening = System.nanoTime();
            Stores store = EmbeddedStore.open(dir, Clock.systemUTC(), Duration.ofHours(1));
            System.out.printf("# opened %s in %.1f s%n", dir, (System.nanoTime() - opening) / 1e9);
            try {
                StoreWriteCost d = new StoreWriteCost(store, a.get("keys"), a.get("biz").equals("1"),
                        prefill + rounds * calls);
                long t0 = System.nanoTime();
                d.run(prefill, callers);
                System.out.printf("# prefill: %d calls in %.1f s; file %d MB%n", prefill, (System.nanoTime() - t0) / 1e9,
                        Files.size(dir.resolve(EmbeddedFile.FILE_NAME)) >> 20);
                for (int r = 1; r <= rounds; r++) {
                    d.round(r, calls, callers);
                }
                if (replays > 0) {
                    d.replays("any record", replays, Integer.MAX_VALUE, callers);
                    d.replays("the last 10,000 calls", replays, 10_000, callers);
                    d.replays("one key", replays, 1, callers);
                }
            } finally {
                store.close();
            }
        } finally {
            if (!keep) {
                delete(dir);
            }
        }
    }

    private void round(int r, int calls, int callers) throws Exception {
        Thread.sleep(1500);  // MVStore's background writer has committed what the last round left
        sampleCpu();
        census.poll(false);  // every chunk so far is the last round's
        census.reset();
        long[] cpu0 = cpuTotals();
        long process0 = processCpu();
        long written0 = census.writeBytes();
        long writes0 = fileStore.getWriteCount();
        long read0 = fileStore.getReadBytes();
        long t0 = System.nanoTime();
        Thread poller = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                census.poll(true);
                sampleCpu();
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "write-cost-poller");
        poller.start();
        run(calls, callers);
        long elapsed = System.nanoTime() - t0;
        Thread.sleep(1500);  // the background writer's last commit of this round's writes (it writes nothing more: all is committed)
        poller.interrupt();
        poller.join();
        census.poll(true);
        sampleCpu();
        long[] cpu1 = cpuTotals();
        long written = census.writeBytes() - written0;
        System.out.printf("round %d: %d calls in %.2f s (%.0f calls/s), %d callers%n", r, calls, elapsed / 1e9, calls / (elapsed / 1e9),
                callers);
        System.out.printf("  file writes: %.0f bytes/call, %.3f writes/call, %.3f chunks/call, reads %.0f bytes/call%n",
                (double) written / calls, (double) (fileStore.getWriteCount() - writes0) / calls, (double) census.chunkCount / calls,
                (double) (fileStore.getReadBytes() - read0) / calls);
        System.out.printf("  chunks seen: %d (ids %d..%d, %d missed), %.0f bytes/call; other writes (chunks moved by MVStore's"
                + " housekeeping, store headers) %.0f bytes/call%n", census.chunkCount, census.minId, census.maxId,
                census.maxId - census.minId + 1 - census.chunkCount, (double) census.chunkBytes / calls,
                (double) (written - census.chunkBytes) / calls);
        long pages = 0;
        for (Map.Entry<String, long[]> e : census.bytesByMap.entrySet()) {
            long[] v = e.getValue();
            pages += v[0];
            System.out.printf("    %-16s %8.0f bytes/call  %6.3f pages/call  %6.0f bytes/leaf page%n", e.getKey(), (double) v[0] / calls,
                    (double) v[1] / calls, v[3] == 0 ? 0.0 : (double) v[2] / v[3]);
        }
        System.out.printf("    %-16s %8.0f bytes/call%n", "chunk overhead", (double) (census.chunkBytes - pages) / calls);
        System.out.printf("  cpu: store threads %.1f µs/call, callers %.1f µs/call, process %.1f µs/call%n",
                (cpu1[0] - cpu0[0]) / 1e3 / calls, (cpu1[1] - cpu0[1]) / 1e3 / calls, (processCpu() - process0) / 1e3 / calls);
    }

    /** {@code n} protected calls by {@code callers} threads, each waiting for every stage of its call. */
    private void run(int n, int callers) throws InterruptedException {
        run(n, callers, this::call);
    }

    /** {@code n} calls of {@code body} by {@code callers} threads. */
    private void run(int n, int callers, CallBody body) throws InterruptedException {
        AtomicLong left = new AtomicLong(n);
        CountDownLatch done = new CountDownLatch(callers);
        Throwable[] failure = {null};
        for (int c = 0; c < callers; c++) {
            int caller = c;
            Thread t = new Thread(() -> {
                try {
                    long i = 0;
                    while (left.getAndDecrement() > 0) {
                        body.call(caller, i++);
                    }
                } catch (Throwable e) {
                    failure[0] = e;
                } finally {
                    ended(threads.getCurrentThreadCpuTime());
                    done.countDown();
                }
            }, "write-cost-caller-" + c);
            t.start();
        }
        done.await();
        if (failure[0] != null) {
            throw new IllegalStateException("a call failed", failure[0]);
        }
    }

    private interface CallBody {
        void call(int caller, long i);
    }

    /**
     * {@code n} replays: reads of the records of calls made so far, as a duplicate's claim (or the
     * near-cache's miss) reads them, picked at random among the last {@code among} calls; prints
     * the store threads' CPU and the file bytes read per replay.
     */
    private void replays(String what, int n, int among, int callers) throws Exception {
        int made = (int) Math.min(counted.get(), keys.length);
        int from = made - Math.min(among, made);
        Thread.sleep(1500);
        sampleCpu();
        long[] cpu0 = cpuTotals();
        long read0 = fileStore.getReadBytes();
        long t0 = System.nanoTime();
        run(n, callers, (caller, i) -> {
            String key = keys[from + java.util.concurrent.ThreadLocalRandom.current().nextInt(made - from)];
            if (store.get(new RecordKey("idem", SCOPE, key)).toCompletableFuture().join().isEmpty()) {
                throw new IllegalStateException("no record for " + key);
            }
        });
        long elapsed = System.nanoTime() - t0;
        sampleCpu();
        long[] cpu1 = cpuTotals();
        System.out.printf("replays of %s: %d in %.2f s (%.0f/s): store threads %.1f µs/replay, file reads %.0f bytes/replay%n",
                what, n, elapsed / 1e9, n / (elapsed / 1e9), (cpu1[0] - cpu0[0]) / 1e3 / n, (double) (fileStore.getReadBytes() - read0) / n);
    }

    private void call(int caller, long i) {
        String key = keyShape.equals("uuid") ? UUID.randomUUID().toString()
                : "pp-" + nonce + "-" + (keyShape.equals("ordered") ? 1 : caller) + "-" + counter.incrementAndGet();
        RecordKey recordKey = new RecordKey("idem", SCOPE, key);
        String callId = CallId.next(java.time.Clock.systemUTC(), java.util.concurrent.ThreadLocalRandom.current());
        String bizId = biz ? "order-" + (i % 1000) : null;
        Instant created = Instant.now();
        ClaimContext ctx = new ClaimContext(callId, TTL,
                new ReceiptPut(new Receipt(callId, bizId, key, "idem", "PROCESSING", null, 0, 0, created, null), TTL));
        store.claim(recordKey, FINGERPRINT, callId, LEASE, ctx).toCompletableFuture().join();
        long n = counted.getAndIncrement();
        if (n < keys.length) {
            keys[(int) n] = key;
        }
        ReceiptPut end = new ReceiptPut(new Receipt(callId, bizId, key, "idem", "SUCCESS", null, 200, 1, created, Instant.now()), TTL);
        boolean ok = store.complete(recordKey, OwnedClaim.of(callId, FINGERPRINT, ctx, created), response, 1, TTL, end).toCompletableFuture().join();
        if (!ok) {
            throw new IllegalStateException("completion refused for " + key);
        }
    }

    /** Records the CPU time of every live thread (a thread that ends keeps its last sample). */
    private synchronized void sampleCpu() {
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            Thread t = e.getKey();
            long ns = threads.getThreadCpuTime(t.getId());
            if (ns < 0) {
                continue;
            }
            String name = t.getName();
            int kind = Arrays.stream(STORE_THREADS).anyMatch(name::startsWith) ? 0 : name.startsWith("write-cost-caller") ? 1 : 2;
            long[] v = cpu.computeIfAbsent(t.getId(), k -> new long[2]);
            v[0] = Math.max(v[0], ns);
            v[1] = kind;
        }
    }

    /** A caller's CPU time as it ends, which no later sample would see. */
    private synchronized void ended(long ns) {
        long[] v = cpu.computeIfAbsent(Thread.currentThread().getId(), k -> new long[2]);
        v[0] = Math.max(v[0], ns);
        v[1] = 1;
    }

    private synchronized long[] cpuTotals() {
        long[] sum = new long[3];
        for (long[] v : cpu.values()) {
            sum[(int) v[1]] += v[0];
        }
        return sum;
    }

    private static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
