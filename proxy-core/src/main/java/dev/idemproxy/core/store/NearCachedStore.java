package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.store.StorePolicy.NearCachePolicy;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A record store in front of another that keeps ended records ({@code COMPLETED} and
 * {@code NOT_RETAINED}) in a local Caffeine cache, so a duplicate of an ended call is answered
 * without a round trip to the backend.
 *
 * <p><b>Why it is safe.</b> An ended record never changes: it can only expire or be evicted by an
 * operator. The near-cache holds only what the backend confirmed ({@link #complete} and
 * {@link #markNotRetained} answered true for the claim this process made, the fenced owner's
 * {@link OwnedClaim} giving the fingerprint and call id, or a claim answered
 * {@code Completed}/{@code NotRetained} and a read of the record agreed), and it answers a claim
 * only with what the backend would: {@code Completed} or {@code NotRetained} when the fingerprint
 * matches, {@code FingerprintMismatch} otherwise. It never answers {@code Claimed}: every claim
 * it does not know goes to the backend, so it can never let a call execute a second time.
 *
 * <p><b>Expiry.</b> Each entry expires at the earlier of the record's own expiry and
 * {@code ttl} after it was cached. For a completion made here the record's expiry is bounded from
 * below by the moment {@code complete} was called plus its ttl, so the entry never outlives the
 * record. For a record read back from a shared backend (Redis), its {@code expiresAt} is compared
 * with this process's clock: clock skew shifts that by at most the skew, and never beyond
 * {@code ttl}.
 *
 * <p><b>Staleness across replicas.</b> {@link #evict} (the admin API's {@code release=true})
 * drops the entry here, before and after the backend deletes the record. Another replica sharing
 * the backend does not hear of it and may go on replaying the evicted record for up to
 * {@code ttl}: an operator who releases a key so that its next duplicate executes must allow for
 * that (or run without the near-cache). The same bound holds if the backend lost a record (a
 * Redis failover): this replica replays the response it saw acknowledged, for up to {@code ttl}.
 *
 * <p><b>Size.</b> At most {@code maxEntries} records and {@code maxBytes} of stored responses
 * (counted as body, header text and a fixed overhead per entry): each entry weighs its size in
 * units of {@code maxBytes / maxEntries}, rounded up, at least one.
 *
 * <p>Every other operation goes straight to the backend. Claims count as near-cache hits or misses
 * ({@code idemproxy_store_near_cache_total{result}}, bound with {@link #bindTo}). Thread-safe.
 */
public final class NearCachedStore extends ForwardingRecordStore implements MeterBinder {
    /** Bytes an entry costs besides its body and headers (keys, record fields, cache node). */
    private static final int ENTRY_OVERHEAD = 256;

    private final RecordStore backend;
    private final Clock clock;
    private final long ttlMillis;
    private final WeightBudget budget;
    /** Ended records, by their full key. */
    private final Cache<RecordKey, Ended> ended;
    /** Keys being read back from the backend after a claim answered Completed or NotRetained. */
    private final Set<RecordKey> loading = ConcurrentHashMap.newKeySet();
    /** Bumped by every evict: a completion or read-back that began before it caches nothing. */
    private final AtomicLong evictions = new AtomicLong();
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();

    /** An ended record as a claim would see it: the fingerprint to match and the answer to give. */
    private record Ended(String fingerprint, String callId, ClaimResult answer, long expiresAtMillis, int weight) {
    }

    private NearCachedStore(RecordStore backend, NearCachePolicy policy, Clock clock) {
        this.backend = backend;
        this.clock = clock;
        this.ttlMillis = policy.ttl().toMillis();
        this.budget = new WeightBudget(policy.maxBytes(), policy.maxEntries());
        Ticker ticker = () -> Math.multiplyExact(clock.millis(), 1_000_000L);
        this.ended = Caffeine.newBuilder()
                .maximumWeight(budget.capacity())
                .weigher((RecordKey k, Ended e) -> e.weight())
                .expireAfter(new EndedExpiry())
                .ticker(ticker)
                .executor(Runnable::run)
                .build();
    }

    /**
     * Puts a near-cache in front of {@code backend}, which it then owns (closes).
     *
     * @param clock the time source for the entries' expiry
     */
    public static NearCachedStore wrap(RecordStore backend, NearCachePolicy policy, Clock clock) {
        requireNonNull(backend, "backend");
        requireNonNull(policy, "policy");
        requireNonNull(clock, "clock");
        return new NearCachedStore(backend, policy, clock);
    }

    @Override
    protected RecordStore delegate() {
        return backend;
    }

    @Override
    public CompletionStage<ClaimResult> claim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
        Ended e = ended.getIfPresent(key);
        if (e != null && e.expiresAtMillis() > clock.millis()) {
            hits.increment();
            return CompletableFuture.completedFuture(
                    e.fingerprint().equals(fingerprint) ? e.answer() : new ClaimResult.FingerprintMismatch(e.callId()));
        }
        misses.increment();
        return backend.claim(key, fingerprint, owner, lease, ctx).thenApply(result -> {
            if (result instanceof ClaimResult.Completed || result instanceof ClaimResult.NotRetained) {
                readBack(key);
            }
            return result;
        });
    }

    /**
     * Caches an ended record another process (or an earlier run) wrote, once per key at a time:
     * a claim's answer does not say when the record expires, the record does.
     */
    private void readBack(RecordKey key) {
        if (!loading.add(key)) {
            return;
        }
        long generation = evictions.get();
        CompletionStage<Optional<IdempotencyRecord>> read;
        try {
            read = backend.get(key);
        } catch (RuntimeException e) {
            loading.remove(key);
            return;
        }
        read.whenComplete((found, err) -> {
            try {
                if (err == null && found.isPresent()) {
                    cacheRecord(key, found.get(), generation);
                }
            } finally {
                loading.remove(key);
            }
        });
    }

    private void cacheRecord(RecordKey key, IdempotencyRecord r, long generation) {
        ClaimResult answer;
        if (r.state() == IdempotencyRecord.State.COMPLETED) {
            answer = new ClaimResult.Completed(r.response(), r.callId(), r.attempts());
        } else if (r.state() == IdempotencyRecord.State.NOT_RETAINED) {
            answer = new ClaimResult.NotRetained(r.callId(), r.status(), r.attempts());
        } else {
            return;
        }
        long now = clock.millis();
        cache(key, r.fingerprint(), r.callId(), answer, Math.min(r.expiresAt().toEpochMilli(), now + ttlMillis), generation);
    }

    @Override
    public CompletionStage<Boolean> complete(RecordKey key, OwnedClaim claim, StoredResponse response, int attempts, Duration ttl,
            ReceiptPut receipt) {
        // Read before the backend's own clock: the record expires no earlier than start + ttl.
        long start = clock.millis();
        long generation = evictions.get();
        return backend.complete(key, claim, response, attempts, ttl, receipt).thenApply(ok -> {
            if (ok) {
                cache(key, claim.fingerprint(), claim.callId(), new ClaimResult.Completed(response, claim.callId(), attempts),
                        expiry(start, ttl), generation);
            }
            return ok;
        });
    }

    @Override
    public CompletionStage<Boolean> markNotRetained(RecordKey key, OwnedClaim claim, int status, int attempts, Duration ttl) {
        long start = clock.millis();
        long generation = evictions.get();
        return backend.markNotRetained(key, claim, status, attempts, ttl).thenApply(ok -> {
            if (ok) {
                cache(key, claim.fingerprint(), claim.callId(), new ClaimResult.NotRetained(claim.callId(), status, attempts),
                        expiry(start, ttl), generation);
            }
            return ok;
        });
    }

    @Override
    public CompletionStage<Boolean> evict(RecordKey key) {
        return evicting(key, () -> backend.evict(key));
    }

    @Override
    public CompletionStage<Boolean> evict(RecordKey key, String settledOwner) {
        return evicting(key, () -> backend.evict(key, settledOwner));
    }

    private CompletionStage<Boolean> evicting(RecordKey key, java.util.function.Supplier<CompletionStage<Boolean>> evict) {
        evictions.incrementAndGet();
        ended.invalidate(key);
        // Again once the backend has deleted it: a completion answered meanwhile may have cached it.
        return evict.get().whenComplete((ok, err) -> {
            evictions.incrementAndGet();
            ended.invalidate(key);
        });
    }

    private long expiry(long start, Duration ttl) {
        return start + Math.min(ttl.toMillis(), ttlMillis);
    }

    private void cache(RecordKey key, String fingerprint, String callId, ClaimResult answer, long expiresAtMillis,
            long generation) {
        if (expiresAtMillis <= clock.millis()) {
            return;
        }
        long bytes = ENTRY_OVERHEAD;
        if (answer instanceof ClaimResult.Completed c) {
            bytes += c.response().bodyLength();
            for (StoredHeader h : c.response().headers()) {
                bytes += h.name().length() + h.value().length();
            }
        }
        int weight = budget.weight(bytes);
        if (weight > budget.capacity()) {
            return;  // larger than the whole near-cache
        }
        ended.put(key, new Ended(fingerprint, callId, answer, expiresAtMillis, weight));
        if (evictions.get() != generation) {
            ended.invalidate(key);  // an evict ran meanwhile: the record may be gone
        }
    }

    /** Claims answered from the near-cache. */
    public long hits() {
        return hits.sum();
    }

    /** Claims that went to the backend. */
    public long misses() {
        return misses.sum();
    }

    /** Registers {@code idemproxy_store_near_cache_total{result=hit|miss}}. */
    @Override
    public void bindTo(MeterRegistry registry) {
        String help = ProxyMetrics.help(ProxyMetrics.STORE_NEAR_CACHE);  // one HELP line for both series
        FunctionCounter.builder(ProxyMetrics.STORE_NEAR_CACHE, hits, LongAdder::sum).tag("result", "hit")
                .description(help).register(registry);
        FunctionCounter.builder(ProxyMetrics.STORE_NEAR_CACHE, misses, LongAdder::sum).tag("result", "miss")
                .description(help).register(registry);
    }

    @Override
    public void close() {
        ended.invalidateAll();
        backend.close();
    }

    /** Expires an entry at its own instant, on the cache's ticker (epoch milliseconds in nanoseconds). */
    private static final class EndedExpiry implements Expiry<RecordKey, Ended> {
        private static long remaining(Ended e, long currentTimeNanos) {
            return Math.max(0, Math.multiplyExact(e.expiresAtMillis(), 1_000_000L) - currentTimeNanos);
        }

        @Override
        public long expireAfterCreate(RecordKey key, Ended e, long currentTime) {
            return remaining(e, currentTime);
        }

        @Override
        public long expireAfterUpdate(RecordKey key, Ended e, long currentTime, long currentDuration) {
            return remaining(e, currentTime);
        }

        @Override
        public long expireAfterRead(RecordKey key, Ended e, long currentTime, long currentDuration) {
            return currentDuration;
        }
    }
}
