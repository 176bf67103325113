package dev.idemproxy.bench;

import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.MeteredStores;
import dev.idemproxy.core.store.NearCachedStore;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.StorePolicy.NearCachePolicy;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.memory.MemoryStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The record store as the protected path holds it: metered, in front of the near-cache, in front
 * of the memory backend (the chain the proxy wires, with the memory store for a backend that adds
 * no I/O of its own). {@code replayFromNearCache} is a duplicate of an ended call answered by the
 * near-cache; {@code claimCompleteReplay} a call's claim and completion and its duplicate's claim.
 * Run with {@code -prof gc}: the decorators' cost is the difference in time and allocation from
 * {@link HotPathBenchmark}'s memory-store benchmarks.
 */
@State(org.openjdk.jmh.annotations.Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class StoreChainBenchmark {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(1);

    Stores stores;
    RecordStore records;
    StoredResponse response;
    final AtomicLong seq = new AtomicLong();
    final RecordKey replayKey = new RecordKey("tickets", "s", "c:replayed");

    @Setup
    public void setup() {
        Stores memory = MemoryStore.create(1_000_000, Clock.systemUTC());
        Stores nearCached = memory.withRecords(NearCachedStore.wrap(memory.records(),
                new NearCachePolicy(true, 10_000, 64L * 1024 * 1024, Duration.ofMinutes(10)), Clock.systemUTC()));
        stores = MeteredStores.wrap(nearCached, new ProxyMetrics(new SimpleMeterRegistry()), Ticker.system());
        records = stores.records();
        response = new StoredResponse(201, List.of(new StoredHeader("content-type", "application/json")),
                "{\"id\":\"T-1\"}".getBytes(StandardCharsets.UTF_8));
        ClaimContext ctx = new ClaimContext("owner");
        records.claim(replayKey, "fp", "owner", LEASE, ctx).toCompletableFuture().join();
        records.complete(replayKey, OwnedClaim.of("owner", "fp", ctx, Instant.EPOCH), response, 1, TTL).toCompletableFuture().join();
    }

    @TearDown
    public void close() {
        stores.close();
    }

    @Benchmark
    public Object replayFromNearCache() {
        return records.claim(replayKey, "fp", "other", LEASE, new ClaimContext("other")).toCompletableFuture().join();
    }

    @Benchmark
    public Object claimCompleteReplay() {
        RecordKey key = new RecordKey("tickets", "s", "c:" + seq.incrementAndGet());
        ClaimContext ctx = new ClaimContext("owner");
        records.claim(key, "fp", "owner", LEASE, ctx).toCompletableFuture().join();
        records.complete(key, OwnedClaim.of("owner", "fp", ctx, Instant.EPOCH), response, 1, TTL).toCompletableFuture().join();
        return records.claim(key, "fp", "other", LEASE, new ClaimContext("other")).toCompletableFuture().join();
    }
}
