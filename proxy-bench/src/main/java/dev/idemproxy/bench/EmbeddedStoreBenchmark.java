package dev.idemproxy.bench;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.ReceiptStore;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.embedded.EmbeddedStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The store work of one protected call with a unique key on the embedded store, under concurrent
 * callers: {@code claimComplete} is a claim and a completion (the two writes whose durability is
 * promised), {@code protectedCall} adds the PROCESSING and final receipts the engine writes too.
 * Each JMH thread plays one in-flight call and waits for every stage, so the thread count is the
 * number of concurrent callers ({@code -t 1}, {@code -t 16}, …). Scores are store cycles per second.
 */
@State(org.openjdk.jmh.annotations.Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 3)
@Fork(1)
@Threads(16)
public class EmbeddedStoreBenchmark {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(1);

    Path directory;
    Stores stores;
    RecordStore store;
    ReceiptStore receipts;
    StoredResponse response;
    final AtomicLong seq = new AtomicLong();

    @Setup
    public void open() throws IOException {
        directory = Files.createTempDirectory("idemproxy-bench-store");
        stores = EmbeddedStore.open(directory, Clock.systemUTC());
        store = stores.records();
        receipts = stores.receipts();
        response = new StoredResponse(201, List.of(new StoredHeader("content-type", "application/json")),
                "{\"id\":\"T-1\",\"status\":\"open\"}".getBytes(StandardCharsets.UTF_8));
    }

    @TearDown
    public void close() throws IOException {
        stores.close();
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    @Benchmark
    public Object claimComplete() {
        String id = "c" + seq.incrementAndGet();
        RecordKey key = new RecordKey("tickets", "s", id);
        ClaimContext ctx = new ClaimContext(id);
        store.claim(key, "fp", id, LEASE, ctx).toCompletableFuture().join();
        return store.complete(key, OwnedClaim.of(id, "fp", ctx, Instant.EPOCH), response, 1, TTL).toCompletableFuture().join();
    }

    @Benchmark
    public Object protectedCall() {
        String id = "p" + seq.incrementAndGet();
        RecordKey key = new RecordKey("tickets", "s", id);
        Instant created = Instant.now();
        ClaimContext ctx = new ClaimContext(id);
        store.claim(key, "fp", id, LEASE, ctx).toCompletableFuture().join();
        receipts.putReceipt(new Receipt(id, null, id, "tickets", "PROCESSING", null, 0, 0, created, null), TTL);
        store.complete(key, OwnedClaim.of(id, "fp", ctx, created), response, 1, TTL).toCompletableFuture().join();
        return receipts.putReceipt(new Receipt(id, null, id, "tickets", "SUCCESS", null, 201, 1, created, Instant.now()), TTL)
                .toCompletableFuture().join();
    }
}
