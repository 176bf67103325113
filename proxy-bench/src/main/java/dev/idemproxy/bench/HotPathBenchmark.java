package dev.idemproxy.bench;

import dev.idemproxy.core.idempotency.Fingerprint;
import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.idempotency.KeyPolicy;
import dev.idemproxy.core.idempotency.KeyResolution;
import dev.idemproxy.core.idempotency.KeyResolver;
import dev.idemproxy.core.idempotency.RequestPart;
import dev.idemproxy.core.idempotency.RequestView;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.memory.MemoryStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
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
 * The per-call work a protected call adds before and after its upstream hop: key resolution
 * (client and derived), scope hashing, fingerprinting a JSON body, and a claim/complete/replay
 * cycle on the memory store.
 */
@State(org.openjdk.jmh.annotations.Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class HotPathBenchmark {
    static final byte[] BODY = ("{\"userId\":42,\"op\":\"create\",\"title\":\"printer on floor 3 is jammed again\","
            + "\"tags\":[\"hw\",\"urgent\"],\"meta\":{\"source\":\"agent\",\"attempt\":1}}").getBytes(StandardCharsets.UTF_8);

    RequestView clientKeyed;
    RequestView unkeyed;
    KeyResolver clientResolver;
    KeyResolver derivingResolver;
    IdempotencyPolicy policy;
    Stores stores;
    RecordStore store;
    StoredResponse response;
    byte[] encodedResponse;
    AtomicLong seq = new AtomicLong();
    final RecordKey replayKey = new RecordKey("tickets", "s", "c:replayed");

    @Setup
    public void setup() {
        clientKeyed = new BenchRequest("/api/tickets", Map.of("Idempotency-Key", "3f0c7a52-6d1e-4d3b-9a57-5d4c2b1e8f90", "Authorization", "Bearer abc",
                "Content-Type", "application/json"), BODY);
        unkeyed = new BenchRequest("/api/tickets", Map.of("Authorization", "Bearer abc", "Content-Type", "application/json"), BODY);
        clientResolver = new KeyResolver(KeyPolicy.DEFAULT, new SplittableRandom(1));
        derivingResolver = new KeyResolver(new KeyPolicy("Idempotency-Key", List.of(RequestPart.parse("method"),
                RequestPart.parse("path"), RequestPart.parse("body:/userId"), RequestPart.parse("body:/op")),
                Duration.ofMinutes(10), false), new SplittableRandom(1));
        policy = IdempotencyPolicy.DISABLED;
        stores = MemoryStore.create(1_000_000, Clock.systemUTC());
        store = stores.records();
        response = new StoredResponse(201, List.of(new StoredHeader("content-type", "application/json")),
                "{\"id\":\"T-1\"}".getBytes(StandardCharsets.UTF_8));
        encodedResponse = dev.idemproxy.core.store.StoreCodec.encodeResponse(response);
        ClaimContext ctx = new ClaimContext("owner");
        store.claim(replayKey, "fp", "owner", Duration.ofSeconds(30), ctx).toCompletableFuture().join();
        store.complete(replayKey, OwnedClaim.of("owner", "fp", ctx, java.time.Instant.EPOCH), response, 1, Duration.ofHours(1))
                .toCompletableFuture().join();
    }

    @TearDown
    public void close() {
        stores.close();
    }

    @Benchmark
    public KeyResolution clientKey() {
        return clientResolver.resolve(clientKeyed);
    }

    @Benchmark
    public KeyResolution derivedKey() {
        return derivingResolver.resolve(unkeyed);
    }

    @Benchmark
    public dev.idemproxy.core.idempotency.Scope scopeHash() {
        return dev.idemproxy.core.idempotency.Scope.of(policy.scope(), clientKeyed);
    }

    @Benchmark
    public Fingerprint fingerprintJsonBody() {
        return Fingerprint.of(List.of(RequestPart.parse("body")), clientKeyed);
    }

    /** What every replay from a remote store (Redis) decodes: the stored response. */
    @Benchmark
    public StoredResponse decodeStoredResponse() {
        return dev.idemproxy.core.store.StoreCodec.decodeResponse(encodedResponse);
    }

    /** What a duplicate of an ended call costs the memory store: a claim answered with the stored response. */
    @Benchmark
    public Object replayOnMemoryStore() {
        return store.claim(replayKey, "fp", "other", Duration.ofSeconds(30), new ClaimContext("other")).toCompletableFuture().join();
    }

    @Benchmark
    public Object claimCompleteReplayOnMemoryStore() {
        RecordKey key = new RecordKey("tickets", "s", "c:" + seq.incrementAndGet());
        ClaimContext ctx = new ClaimContext("owner");
        store.claim(key, "fp", "owner", Duration.ofSeconds(30), ctx).toCompletableFuture().join();
        store.complete(key, OwnedClaim.of("owner", "fp", ctx, java.time.Instant.EPOCH), response, 1, Duration.ofHours(1))
                .toCompletableFuture().join();
        return store.claim(key, "fp", "other", Duration.ofSeconds(30), new ClaimContext("other")).toCompletableFuture().join();
    }
}
