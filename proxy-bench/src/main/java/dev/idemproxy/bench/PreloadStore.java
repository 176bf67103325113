package dev.idemproxy.bench;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.embedded.EmbeddedStore;
import dev.idemproxy.core.store.redis.RedisStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Not a benchmark: fills a store with completed calls, as a proxy would have left them, so that
 * {@code bench/cpu.sh --preload N} measures protected calls against a store that already holds N
 * records (and N receipts). Each call is a claim with its PROCESSING receipt and a completion with
 * a small JSON response and its SUCCESS receipt, under route {@code idem}, keys
 * {@code preload-<n>}, kept for {@code ttl}; up to 512 calls are in flight at once.
 *
 * <pre>
 * java -cp proxy-bench/target/idemproxy-bench.jar dev.idemproxy.bench.PreloadStore embedded DIR COUNT [TTL]
 * java -cp proxy-bench/target/idemproxy-bench.jar dev.idemproxy.bench.PreloadStore redis URI PREFIX COUNT [TTL]
 * </pre>
 *
 * TTL is an ISO-8601 duration ({@code PT1H}, the default). Run it before the proxy opens the
 * embedded store's directory (the file is locked while open).
 */
public final class PreloadStore {
    private static final int IN_FLIGHT = 512;

    private PreloadStore() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: PreloadStore embedded DIR COUNT [TTL] | redis URI PREFIX COUNT [TTL]");
            System.exit(2);
        }
        boolean redis = args[0].equals("redis");
        int at = redis ? 3 : 2;
        long count = Long.parseLong(args[at]);
        Duration ttl = args.length > at + 1 ? Duration.parse(args[at + 1]) : Duration.ofHours(1);
        Stores stores = redis
                ? RedisStore.connect(new RedisPolicy(args[1], "standalone", args[2]), Duration.ofSeconds(10))
                : EmbeddedStore.open(Path.of(args[1]), Clock.systemUTC());
        long start = System.nanoTime();
        try {
            fill(stores, count, ttl);
        } finally {
            stores.close();
        }
        System.out.printf("preloaded %d completed calls in %.1f s%n", count, (System.nanoTime() - start) / 1e9);
    }

    private static void fill(Stores stores, long count, Duration ttl) throws InterruptedException {
        Semaphore slots = new Semaphore(IN_FLIGHT);
        AtomicLong failed = new AtomicLong();
        StoredResponse response = new StoredResponse(200, List.of(new StoredHeader("Content-Type", "application/json"),
                new StoredHeader("Content-Length", "27")), "{\"ok\":true,\"id\":\"t-000001\"}".getBytes(StandardCharsets.UTF_8));
        for (long n = 0; n < count; n++) {
            slots.acquire();
            String callId = String.format("%012x%020d", System.currentTimeMillis(), n);
            String owner = callId + ".0000000000000000";
            RecordKey key = new RecordKey("idem", "", "preload-" + n);
            Instant now = Instant.now();
            Receipt processing = new Receipt(callId, null, key.key(), "idem", "PROCESSING", null, 0, 0, now, null);
            OwnedClaim claim = new OwnedClaim(owner, callId, "fp", now, ttl);
            CompletionStage<Boolean> done = stores.records()
                    .claim(key, "fp", owner, Duration.ofSeconds(30), new ClaimContext(callId, ttl, new ReceiptPut(processing, ttl)))
                    .thenCompose(c -> stores.records().complete(key, claim, response, 1, ttl, new ReceiptPut(
                            new Receipt(callId, null, key.key(), "idem", "SUCCESS", null, 200, 1, now, Instant.now()), ttl)));
            done.whenComplete((ok, err) -> {
                if (err != null || !ok) {
                    failed.incrementAndGet();
                }
                slots.release();
            });
        }
        if (!slots.tryAcquire(IN_FLIGHT, 10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("the last calls did not complete within 10 minutes");
        }
        if (failed.get() > 0) {
            throw new IllegalStateException(failed.get() + " of " + count + " calls failed");
        }
    }
}
