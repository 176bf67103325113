package dev.idemproxy.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.redis.RedisStore;
import dev.idemproxy.core.tries.CallHeads;
import dev.idemproxy.core.tries.CallTries;
import dev.idemproxy.core.tries.HeadField;
import dev.idemproxy.core.tries.RequestHead;
import dev.idemproxy.core.tries.ResponseHead;
import dev.idemproxy.core.tries.Try;
import dev.idemproxy.core.tries.TryClass;
import dev.idemproxy.core.tries.TryNext;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the Redis server spends per protected call, without the proxy around it: a {@code main}
 * that runs {@code rounds} rounds of {@code calls} protected calls' store work through the Redis
 * store (a claim with its PROCESSING receipt, then a completion with the bench's response and a
 * final receipt with one try and the heads, as the engine writes them for bench/cpu.sh's POST),
 * {@code inflight} at once, then as many replays (claims that find the completed record), and
 * prints per call, from Redis's own {@code INFO}: its CPU (user and system µs), its commands by
 * name, its reads of the socket and the bytes it read; and this process's CPU per call (Lettuce's
 * encoding and decoding, mostly, plus this driver). Arguments as {@code name=value}: {@code uri}
 * (redis://127.0.0.1:6379), {@code calls} (20000), {@code rounds} (3), {@code inflight} (8),
 * {@code prefix} (cost:), {@code replays} (true: each round's calls are then replayed). Run it against a private redis-server:
 * {@code java -cp proxy-bench/target/idemproxy-bench.jar dev.idemproxy.bench.RedisCallCost uri=redis://127.0.0.1:PORT}.
 * It uses only the store API, so the class runs against an earlier version's bench jar too.
 */
public final class RedisCallCost {
    private static final String FINGERPRINT = "96b46b4aac8991b8da678bac5e17f65db2141db1f8a5378639ad8703b9cc21e9";
    private static final List<StoredHeader> RESPONSE_HEADERS = List.of(new StoredHeader("Server", "nginx/1.22.1"),
            new StoredHeader("Date", "Fri, 04 Dec 2026 23:06:22 GMT"), new StoredHeader("Content-Type", "application/json"),
            new StoredHeader("Content-Length", "27"), new StoredHeader("X-Call-Id", "01a2434f08e16942748256490898572c"),
            new StoredHeader("X-Attempts", "1"));
    private static final StoredResponse RESPONSE = new StoredResponse(200, RESPONSE_HEADERS,
            "{\"ok\":true,\"id\":\"t-000001\"}".getBytes(UTF_8));
    private static final Duration TTL = Duration.ofMinutes(2);
    private static final Duration LEASE = Duration.ofSeconds(30);

    private RedisCallCost() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>(Map.of("uri", "redis://127.0.0.1:6379", "calls", "20000", "rounds", "3",
                "inflight", "8", "prefix", "cost:", "replays", "true"));
        for (String arg : args) {
            a.put(arg.substring(0, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
        }
        System.out.println("# " + a);
        java.net.URI uri = java.net.URI.create(a.get("uri"));
        int calls = Integer.parseInt(a.get("calls"));
        int inflight = Integer.parseInt(a.get("inflight"));
        Stores stores = RedisStore.connect(new RedisPolicy(a.get("uri"), "standalone", a.get("prefix")), Duration.ofSeconds(10));
        try (Socket admin = new Socket(uri.getHost(), uri.getPort())) {
            for (int round = 1; round <= Integer.parseInt(a.get("rounds")); round++) {
                String run = "r" + round + "-" + System.nanoTime();
                Map<String, Double> before = info(admin);
                long cpu0 = processCpuNanos();
                drive(calls, inflight, n -> call(stores, run, n));
                print("new-key round " + round, before, info(admin), cpu0, calls);
                if (!Boolean.parseBoolean(a.get("replays"))) {
                    continue;
                }
                before = info(admin);
                cpu0 = processCpuNanos();
                drive(calls, inflight, n -> replay(stores, run, n));
                print("replay  round " + round, before, info(admin), cpu0, calls);
            }
        } finally {
            stores.close();
        }
    }

    private interface Call {
        CompletionStage<?> run(int n);
    }

    private static void drive(int calls, int inflight, Call call) throws InterruptedException {
        Semaphore slots = new Semaphore(inflight);
        AtomicLong failed = new AtomicLong();
        for (int n = 0; n < calls; n++) {
            slots.acquire();
            call.run(n).whenComplete((ok, err) -> {
                if (err != null || Boolean.FALSE.equals(ok)) {
                    failed.incrementAndGet();
                }
                slots.release();
            });
        }
        if (!slots.tryAcquire(inflight, 2, TimeUnit.MINUTES)) {
            throw new IllegalStateException("the last calls did not end within 2 minutes");
        }
        if (failed.get() > 0) {
            throw new IllegalStateException(failed.get() + " of " + calls + " calls failed");
        }
    }

    private static RecordKey key(String run, int n) {
        return new RecordKey("idem", "635f6c441a405f7afbc5862f2f3724e3", "cpu-" + run + "-1-" + n);
    }

    private static String callId(String run, int n) {
        return String.format("%016x%016x", run.hashCode() & 0xffffffffL, n);
    }

    /** A protected call's store work, with receipts shaped as the engine's for bench/cpu.sh's POST. */
    private static CompletionStage<Boolean> call(Stores stores, String run, int n) {
        RecordKey key = key(run, n);
        String callId = callId(run, n);
        String owner = callId + ".60bd7c8d82d1167a";
        Instant created = Instant.now();
        Receipt started = new Receipt(callId, null, key.key(), "idem", "PROCESSING", null, 0, 0, created, null)
                .withDetail(null, CallTries.NONE, null);
        RequestHead request = new RequestHead("POST", "/idem/post", List.of(new HeadField("Host", "127.0.0.1:26481"),
                new HeadField("Content-Type", "application/json"), new HeadField("Idempotency-Key", key.key()),
                new HeadField("Content-Length", "84")));
        List<HeadField> responseFields = RESPONSE_HEADERS.stream().map(h -> new HeadField(h.name(), h.value())).toList();
        OwnedClaim claim = new OwnedClaim(owner, callId, FINGERPRINT, created, TTL);
        return stores.records().claim(key, FINGERPRINT, owner, LEASE, new ClaimContext(callId, TTL, new ReceiptPut(started, TTL)))
                .thenCompose(c -> {
                    Receipt done = new Receipt(callId, null, key.key(), "idem", "SUCCESS", "executed", 200, 1, created, Instant.now())
                            .withDetail(null, new CallTries(List.of(new Try(1, 0, 2, 200, null, TryClass.EXECUTED, TryNext.ANSWER,
                                    -1, "executed", -1, null, null)), 0), CallHeads.of(request, new ResponseHead(200, responseFields)));
                    return stores.records().complete(key, claim, RESPONSE, 1, TTL, new ReceiptPut(done, TTL));
                });
    }

    /** A duplicate of call {@code n}: a claim that finds it completed. */
    private static CompletionStage<Boolean> replay(Stores stores, String run, int n) {
        return stores.records().claim(key(run, n), FINGERPRINT, "dup." + n, LEASE, new ClaimContext("dup-" + n, TTL, null))
                .thenApply(c -> c instanceof dev.idemproxy.core.store.ClaimResult.Completed);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static void print(String what, Map<String, Double> a, Map<String, Double> b, long cpu0, int calls) {
        StringBuilder cmds = new StringBuilder();
        double total = 0;
        for (Map.Entry<String, Double> e : new java.util.TreeMap<>(b).entrySet()) {
            if (e.getKey().startsWith("cmd:") && !e.getKey().equals("cmd:info")) {
                double d = (e.getValue() - a.getOrDefault(e.getKey(), 0.0)) / calls;
                if (d > 0.005) {
                    total += d;
                    cmds.append(String.format(" %s=%.2f", e.getKey().substring(4), d));
                }
            }
        }
        double user = (b.get("used_cpu_user") - a.get("used_cpu_user")) * 1e6 / calls;
        double sys = (b.get("used_cpu_sys") - a.get("used_cpu_sys")) * 1e6 / calls;
        System.out.printf("%s: Redis %.1f µs/call (user %.1f, sys %.1f), %.2f reads, %.0f bytes in, %.2f commands:%s; client %.1f µs/call%n",
                what, user + sys, user, sys, (b.get("total_reads_processed") - a.get("total_reads_processed")) / calls,
                (b.get("total_net_input_bytes") - a.get("total_net_input_bytes")) / calls, total, cmds,
                (processCpuNanos() - cpu0) / 1e3 / calls);
    }

    /** Redis's INFO: CPU, reads, bytes in, and commandstats as cmd:NAME → calls. */
    private static Map<String, Double> info(Socket s) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write("*2\r\n$4\r\nINFO\r\n$3\r\nall\r\n".getBytes(UTF_8));
        out.flush();
        InputStream in = s.getInputStream();
        String head = line(in);
        int n = Integer.parseInt(head.substring(1));
        String body = new String(in.readNBytes(n + 2), UTF_8);
        Map<String, Double> m = new HashMap<>();
        for (String l : body.split("\r\n")) {
            int colon = l.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String k = l.substring(0, colon);
            String v = l.substring(colon + 1);
            if (k.startsWith("cmdstat_")) {
                m.put("cmd:" + k.substring(8), Double.parseDouble(v.substring(6, v.indexOf(','))));
            } else if (k.equals("used_cpu_user") || k.equals("used_cpu_sys") || k.equals("total_reads_processed")
                    || k.equals("total_net_input_bytes")) {
                m.put(k, Double.parseDouble(v));
            }
        }
        return m;
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new IOException("Redis closed the connection");
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }
}
