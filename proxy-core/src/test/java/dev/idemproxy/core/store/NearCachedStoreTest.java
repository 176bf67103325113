package dev.idemproxy.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idemproxy.core.store.ClaimResult.Claimed;
import dev.idemproxy.core.store.ClaimResult.Completed;
import dev.idemproxy.core.store.ClaimResult.FingerprintMismatch;
import dev.idemproxy.core.store.ClaimResult.NotRetained;
import dev.idemproxy.core.store.StorePolicy.NearCachePolicy;
import dev.idemproxy.core.store.memory.MemoryStore;
import dev.idemproxy.core.testing.Claims;
import dev.idemproxy.core.testing.TestClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NearCachedStoreTest {
    private static final Duration LONG = Duration.ofMinutes(5);
    private static final Duration NEAR_TTL = Duration.ofSeconds(30);
    private static final RecordKey KEY = new RecordKey("tickets", "scope", "c:k1");
    private static final StoredResponse RESPONSE = new StoredResponse(201,
            List.of(new StoredHeader("Content-Type", "application/json")), "{\"id\":1}".getBytes(StandardCharsets.UTF_8));

    private final TestClock clock = new TestClock();
    private final RecordStore backend = MemoryStore.create(10_000, clock).records();
    private final NearCachedStore store = NearCachedStore.wrap(backend, policy(1000, 64L * 1024 * 1024), clock);

    private static NearCachePolicy policy(long maxEntries, long maxBytes) {
        return new NearCachePolicy(true, maxEntries, maxBytes, NEAR_TTL);
    }

    @AfterEach
    void close() {
        store.close();
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static ClaimResult claim(RecordStore s, String fp, String owner) throws Exception {
        return await(s.claim(KEY, fp, owner, LONG, new ClaimContext("call-" + owner)));
    }

    private void completed(RecordStore s) throws Exception {
        assertThat(claim(s, "fp", "o1")).isEqualTo(Claimed.FRESH);
        assertThat(await(s.complete(KEY, Claims.owned("o1"), RESPONSE, 2, LONG))).isTrue();
    }

    @Test
    void aCompletedRecordIsReplayedWithoutTheBackend() throws Exception {
        completed(store);
        backend.close();  // any call to it would now fail

        assertThat(claim(store, "fp", "o2")).isEqualTo(new Completed(RESPONSE, "call-o1", 2));
        assertThat(store.hits()).isEqualTo(1);
        assertThat(store.misses()).isEqualTo(1);
    }

    @Test
    void aDifferentFingerprintIsAMismatchAnsweredFromTheNearCache() throws Exception {
        completed(store);
        backend.close();

        assertThat(claim(store, "fp-other", "o2")).isEqualTo(new FingerprintMismatch("call-o1"));
    }

    @Test
    void aNotRetainedRecordIsAnsweredFromTheNearCache() throws Exception {
        claim(store, "fp", "o1");
        assertThat(await(store.markNotRetained(KEY, Claims.owned("o1"), 200, 3, LONG))).isTrue();
        backend.close();

        assertThat(claim(store, "fp", "o2")).isEqualTo(new NotRetained("call-o1", 200, 3));
        assertThat(claim(store, "fp-b", "o3")).isEqualTo(new FingerprintMismatch("call-o1"));
    }

    @Test
    void inFlightAndReleasedRecordsAreNeverCached() throws Exception {
        claim(store, "fp", "o1");
        assertThat(claim(store, "fp", "o2")).isInstanceOf(ClaimResult.InFlight.class);
        assertThat(await(store.release(KEY, "o1"))).isTrue();

        assertThat(claim(store, "fp", "o3")).isEqualTo(Claimed.FRESH);
        assertThat(store.hits()).isZero();
    }

    @Test
    void aFencedOffCompletionCachesNothing() throws Exception {
        claim(store, "fp", "o1");
        await(backend.evict(KEY));  // as if another replica had released it
        claim(backend, "fp", "o2");  // and another call holds it now

        assertThat(await(store.complete(KEY, Claims.owned("o1"), RESPONSE, 1, LONG))).isFalse();
        assertThat(claim(store, "fp", "o3")).isInstanceOf(ClaimResult.InFlight.class);
        assertThat(store.hits()).isZero();
    }

    @Test
    void anEntryExpiresWithItsRecordWhenThatComesFirst() throws Exception {
        claim(store, "fp", "o1");
        await(store.complete(KEY, Claims.owned("o1"), RESPONSE, 1, Duration.ofSeconds(5)));

        clock.advance(Duration.ofSeconds(5));
        assertThat(claim(store, "fp", "o2")).isEqualTo(Claimed.FRESH);
        assertThat(store.hits()).isZero();
    }

    @Test
    void anEntryExpiresAfterTheNearCacheTtlWhenThatComesFirst() throws Exception {
        completed(store);
        clock.advance(NEAR_TTL.minusMillis(1));
        claim(store, "fp", "o2");
        assertThat(store.hits()).isEqualTo(1);

        clock.advance(Duration.ofMillis(1));
        await(backend.evict(KEY));  // another replica's operator release, unseen here
        assertThat(claim(store, "fp", "o3")).isEqualTo(Claimed.FRESH);
        assertThat(store.hits()).isEqualTo(1);
    }

    @Test
    void evictDropsTheEntrySoTheNextDuplicateExecutes() throws Exception {
        completed(store);
        assertThat(await(store.evict(KEY))).isTrue();

        assertThat(claim(store, "fp", "o2")).isEqualTo(Claimed.FRESH);
        assertThat(store.hits()).isZero();
    }

    @Test
    void aReplicaCachesARecordAnotherReplicaCompletedOnceItHasReadItBack() throws Exception {
        completed(backend);  // written by another replica
        assertThat(claim(store, "fp", "o2")).isEqualTo(new Completed(RESPONSE, "call-o1", 2));  // a miss, then read back
        backend.close();

        assertThat(claim(store, "fp", "o3")).isEqualTo(new Completed(RESPONSE, "call-o1", 2));
        assertThat(claim(store, "fp-b", "o4")).isEqualTo(new FingerprintMismatch("call-o1"));
        assertThat(store.hits()).isEqualTo(2);
    }

    @Test
    void aRecordReadBackKeepsItsOwnExpiry() throws Exception {
        claim(backend, "fp", "o1");
        await(backend.complete(KEY, Claims.owned("o1"), RESPONSE, 1, Duration.ofSeconds(3)));
        claim(store, "fp", "o2");

        clock.advance(Duration.ofSeconds(3));
        assertThat(claim(store, "fp", "o3")).isEqualTo(Claimed.FRESH);
        assertThat(store.hits()).isZero();
    }

    @Test
    void aResponseLargerThanTheWholeNearCacheIsNotCached() throws Exception {
        NearCachedStore small = NearCachedStore.wrap(backend, policy(10, 10 * 1024), clock);
        StoredResponse big = new StoredResponse(200, List.of(), new byte[20 * 1024]);
        claim(small, "fp", "o1");
        await(small.complete(KEY, Claims.owned("o1"), big, 1, LONG));

        assertThat(claim(small, "fp", "o2")).isInstanceOf(Completed.class);
        assertThat(small.hits()).isZero();
    }

    @Test
    void aFailedBackendClaimFailsTheClaim() throws Exception {
        backend.close();
        assertThatThrownBy(() -> claim(store, "fp", "o1")).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(StoreUnavailableException.class);
    }

    @Test
    void hitsAndMissesAreCountedByResult() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        store.bindTo(registry);
        completed(store);
        claim(store, "fp", "o2");
        claim(store, "fp", "o3");

        assertThat(registry.get("idemproxy.store.near.cache").tag("result", "hit").functionCounter().count()).isEqualTo(2);
        assertThat(registry.get("idemproxy.store.near.cache").tag("result", "miss").functionCounter().count()).isEqualTo(1);
    }

    @Test
    void policyValuesOutOfRangeAreRejected() {
        assertThatThrownBy(() -> new NearCachePolicy(true, 0, 1024, NEAR_TTL))
                .hasMessage("maxEntries 0 (expected: 1..2147483647)");
        assertThatThrownBy(() -> new NearCachePolicy(true, 100, 0, NEAR_TTL))
                .hasMessage("maxBytes 0 (expected: >= 1)");
        assertThatThrownBy(() -> new NearCachePolicy(true, 100, 1024, Duration.ZERO))
                .hasMessage("ttl: PT0S (expected: > 0)");
    }
}
