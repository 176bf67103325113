package dev.idemproxy.core.store.memory;

import static dev.idemproxy.core.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.DeadLetterPage;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.DeadLetterStore;
import dev.idemproxy.core.store.ReceiptStore;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.TaskBudgetStore;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.RecordTransitions;
import dev.idemproxy.core.store.RecordTransitions.ClaimTransition;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.store.WeightBudget;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The in-memory store: Caffeine caches bounded by {@code maxEntries} and {@code maxBytes}, each
 * value expiring at its own instant on the injected clock.
 *
 * <p>Guarantees: atomic per key ({@code asMap().compute}); nothing survives a restart. <b>Size.</b>
 * Everything is on the JVM heap, so the store is bounded by an estimate of the heap it holds as
 * well as by count: ended records may take half of {@code maxBytes}, receipts a quarter and dead
 * letters a quarter ({@link MemoryFootprint} estimates each entry, {@link WeightBudget} weighs
 * it, so one bound caps both the count and the bytes). When
 * full, Caffeine evicts ended records (size-based, near-LRU), and an evicted completed record
 * re-executes on its next duplicate: size the store above the keys expected within a TTL. A record
 * <em>in flight</em> weighs nothing and is never evicted for size, so a duplicate of a call that
 * is still running always finds it (there are at most as many as calls in progress; they still
 * expire). The dead-letter queue drops its oldest entries; task retry counters are bounded by
 * count (an evicted counter starts again from zero).
 *
 * <p>Thread-safe. Operations run on the caller's thread and return completed stages: they only
 * touch memory and never block on I/O.
 */
public final class MemoryStore implements RecordStore, ReceiptStore, DeadLetterStore, TaskBudgetStore {
    /** The smallest byte bound: a few hundred small records. */
    public static final long MIN_BYTES = 1024 * 1024;
    private final Clock clock;
    private final Cache<String, IdempotencyRecord> records;
    private final Cache<String, TimedReceipt> receipts;
    private final Map<String, ConcurrentSkipListMap<String, String>> receiptsByBiz = new ConcurrentHashMap<>();
    private final MemoryDeadLetters deadLetters;
    private final Cache<String, TimedCount> taskCounters;
    private volatile boolean closed;

    private record TimedReceipt(Receipt receipt, Instant expiresAt) {
    }

    private record TimedCount(long used, Instant expiresAt) {
    }

    private MemoryStore(long maxEntries, long maxBytes, Clock clock) {
        this.clock = clock;
        Ticker ticker = () -> Math.multiplyExact(clock.millis(), 1_000_000L);
        WeightBudget recordShare = new WeightBudget(maxBytes / 2, maxEntries);
        WeightBudget receiptShare = new WeightBudget(maxBytes / 4, maxEntries);
        this.records = Caffeine.newBuilder()
                .maximumWeight(recordShare.capacity())
                // in flight: weightless, so never evicted for size (its duplicate would execute)
                .weigher((String id, IdempotencyRecord r) ->
                        r.state() == IdempotencyRecord.State.IN_FLIGHT ? 0 : recordShare.weight(MemoryFootprint.of(id, r)))
                .ticker(ticker)
                .expireAfter(new TimedExpiry<String, IdempotencyRecord>(IdempotencyRecord::expiresAt))
                .executor(Runnable::run)
                .build();
        this.receipts = Caffeine.newBuilder()
                .maximumWeight(receiptShare.capacity())
                .weigher((String callId, TimedReceipt r) -> receiptShare.weight(MemoryFootprint.of(r.receipt())))
                .ticker(ticker)
                .expireAfter(new TimedExpiry<String, TimedReceipt>(TimedReceipt::expiresAt))
                .executor(Runnable::run)
                .removalListener((String callId, TimedReceipt r, RemovalCause cause) -> {
                    if (r != null && cause != RemovalCause.REPLACED) {
                        unindex(r.receipt());
                    }
                })
                .build();
        this.deadLetters = new MemoryDeadLetters(maxEntries, maxBytes / 4);
        this.taskCounters = Caffeine.newBuilder()
                .maximumSize(maxEntries)
                .ticker(ticker)
                .expireAfter(new TimedExpiry<String, TimedCount>(TimedCount::expiresAt))
                .executor(Runnable::run)
                .build();
    }

    /**
     * The stores of a memory backend holding at most {@code maxEntries} ended records (and as many
     * receipts and dead letters), and about {@code maxBytes} of heap in all (see the class comment).
     *
     * @param maxBytes at least {@link #MIN_BYTES}
     * @param clock    the time source for leases and expiry; tests pass a clock they advance by hand
     */
    public static Stores create(long maxEntries, long maxBytes, Clock clock) {
        return backend(maxEntries, maxBytes, clock).stores();
    }

    /** As {@link #create(long, long, Clock)} with the default byte bound, a quarter of the heap. */
    public static Stores create(long maxEntries, Clock clock) {
        return create(maxEntries, defaultMaxBytes(), clock);
    }

    /** The backend itself, for tests that look inside it. */
    static MemoryStore backend(long maxEntries, long maxBytes, Clock clock) {
        requireArgument(maxEntries >= 1, "maxEntries " + maxEntries + " (expected: >= 1)");
        requireArgument(maxBytes >= MIN_BYTES, "maxBytes " + maxBytes + " (expected: >= " + MIN_BYTES + ")");
        return new MemoryStore(maxEntries, maxBytes, requireNonNull(clock, "clock"));
    }

    /** A quarter of the JVM's maximum heap ({@code -Xmx}) in whole MiB, and at least {@link #MIN_BYTES}. */
    public static long defaultMaxBytes() {
        return Math.max(MIN_BYTES, Runtime.getRuntime().maxMemory() / 4 / MIN_BYTES * MIN_BYTES);
    }

    /** Runs Caffeine's pending maintenance (evictions) now; for tests. */
    void cleanUp() {
        records.cleanUp();
        receipts.cleanUp();
    }

    /** Records held now, in flight and ended; for tests. */
    long recordCount() {
        return records.estimatedSize();
    }

    /** Receipts held now; for tests. */
    long receiptCount() {
        return receipts.estimatedSize();
    }

    private Instant now() {
        return Instant.ofEpochMilli(clock.millis());
    }

    @Override
    public CompletionStage<ClaimResult> claim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
        return run(() -> {
            // A duplicate of a call that ended (or is in flight) changes nothing: answered from a
            // read, without the write that compute costs. What the read saw was the record at that
            // moment; any claim that would change it goes through compute, atomically.
            IdempotencyRecord seen = records.getIfPresent(key.id());
            if (seen != null) {
                Instant now = now();
                IdempotencyRecord live = RecordTransitions.live(seen, now);
                if (live != null) {
                    ClaimTransition t = RecordTransitions.claim(live, fingerprint, owner, lease, ctx, now);
                    if (t.next() == null) {
                        return t.result();
                    }
                }
            }
            AtomicReference<ClaimResult> result = new AtomicReference<>();
            records.asMap().compute(key.id(), (k, current) -> {
                Instant now = now();
                IdempotencyRecord live = RecordTransitions.live(current, now);
                ClaimTransition t = RecordTransitions.claim(live, fingerprint, owner, lease, ctx, now);
                result.set(t.result());
                return t.next() != null ? t.next() : live;
            });
            if (ctx.receipt() != null && result.get() instanceof ClaimResult.Claimed) {
                writeReceipt(ctx.receipt().receipt(), ctx.receipt().ttl());
            }
            return result.get();
        });
    }

    @Override
    public CompletionStage<Boolean> renew(RecordKey key, OwnedClaim claim, Duration lease) {
        return update(key, (current, now) -> RecordTransitions.renew(current, claim, lease, now));
    }

    @Override
    public CompletionStage<Boolean> complete(RecordKey key, OwnedClaim claim, StoredResponse response, int attempts, Duration ttl,
            ReceiptPut receipt) {
        return update(key, (current, now) -> RecordTransitions.complete(current, claim, response, attempts, ttl, now))
                .thenApply(done -> {
                    if (done && receipt != null) {
                        writeReceipt(receipt.receipt(), receipt.ttl());
                    }
                    return done;
                });
    }

    @Override
    public CompletionStage<Boolean> markNotRetained(RecordKey key, OwnedClaim claim, int status, int attempts, Duration ttl) {
        return update(key, (current, now) -> RecordTransitions.notRetained(current, claim, status, attempts, ttl, now));
    }

    @Override
    public CompletionStage<Boolean> release(RecordKey key, String owner) {
        return run(() -> {
            boolean[] released = {false};
            records.asMap().computeIfPresent(key.id(), (k, current) -> {
                IdempotencyRecord live = RecordTransitions.live(current, now());
                released[0] = RecordTransitions.heldBy(live, owner);
                return released[0] || live == null ? null : current;
            });
            return released[0];
        });
    }

    @Override
    public CompletionStage<Boolean> evict(RecordKey key) {
        return run(() -> RecordTransitions.live(records.asMap().remove(key.id()), now()) != null);
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> get(RecordKey key) {
        return run(() -> Optional.ofNullable(RecordTransitions.live(records.getIfPresent(key.id()), now())));
    }

    @Override
    public CompletionStage<Void> putReceipt(Receipt receipt, Duration ttl) {
        return run(() -> {
            writeReceipt(receipt, ttl);
            return null;
        });
    }

    private void writeReceipt(Receipt receipt, Duration ttl) {
        TimedReceipt next = new TimedReceipt(receipt, now().plus(ttl));
        TimedReceipt[] previous = {null};
        receipts.asMap().compute(receipt.callId(), (id, old) -> {
            previous[0] = old;
            return next;
        });
        if (previous[0] != null) {
            unindex(previous[0].receipt());
        }
        if (receipt.bizId() != null) {
            receiptsByBiz.computeIfAbsent(receipt.bizId(), b -> new ConcurrentSkipListMap<>())
                    .put(receipt.sortKey(), receipt.callId());
        }
    }

    @Override
    public CompletionStage<Optional<Receipt>> receipt(String callId) {
        return run(() -> Optional.ofNullable(liveReceipt(callId)));
    }

    @Override
    public CompletionStage<List<Receipt>> receiptsByBizId(String bizId, int limit) {
        requireArgument(limit >= 1, "limit " + limit + " (expected: >= 1)");
        return run(() -> {
            List<Receipt> found = new ArrayList<>();
            ConcurrentSkipListMap<String, String> index = receiptsByBiz.get(bizId);
            if (index == null) {
                return found;
            }
            for (String callId : index.values()) {
                Receipt r = liveReceipt(callId);
                if (r != null && bizId.equals(r.bizId())) {
                    found.add(r);
                    if (found.size() == limit) {
                        break;
                    }
                }
            }
            return found;
        });
    }

    @Override
    public CompletionStage<Void> addDeadLetter(DeadLetter entry) {
        return run(() -> {
            deadLetters.add(entry);
            return null;
        });
    }

    @Override
    public CompletionStage<DeadLetterPage> deadLetters(String cursor, int limit) {
        requireArgument(limit >= 1, "limit " + limit + " (expected: >= 1)");
        return run(() -> deadLetters.page(cursor, limit));
    }

    @Override
    public CompletionStage<Optional<DeadLetter>> deadLetter(String id) {
        return run(() -> deadLetters.get(id));
    }

    @Override
    public CompletionStage<Boolean> deleteDeadLetter(String id) {
        return run(() -> deadLetters.delete(id));
    }

    @Override
    public CompletionStage<Long> deadLetterCount() {
        return run(deadLetters::count);
    }

    @Override
    public CompletionStage<Long> chargeTaskRetry(String windowKey, int maxRetries, Duration ttl) {
        return run(() -> {
            long[] charged = {-1};
            taskCounters.asMap().compute(windowKey, (k, current) -> {
                Instant now = now();
                long used = current == null || !current.expiresAt().isAfter(now) ? 0 : current.used();
                if (used >= maxRetries) {
                    return current;
                }
                charged[0] = used + 1;
                return new TimedCount(used + 1, now.plus(ttl));
            });
            return charged[0];
        });
    }

    @Override
    public CompletionStage<Long> taskRetriesUsed(String windowKey) {
        return run(() -> {
            TimedCount c = taskCounters.getIfPresent(windowKey);
            return c == null || !c.expiresAt().isAfter(now()) ? 0L : c.used();
        });
    }

    /** This backend as its four stores. */
    Stores stores() {
        return new Stores(this, this, this, this);
    }

    @Override
    public boolean isAvailable() {
        return !closed;
    }

    @Override
    public void close() {
        closed = true;
        records.invalidateAll();
        receipts.invalidateAll();
        taskCounters.invalidateAll();
    }

    private interface Step {
        IdempotencyRecord apply(IdempotencyRecord current, Instant now);
    }

    /** Applies an owner-checked step (to an absent record too: see {@link RecordTransitions}); true when it produced a new record. */
    private CompletionStage<Boolean> update(RecordKey key, Step step) {
        return run(() -> {
            boolean[] done = {false};
            records.asMap().compute(key.id(), (k, current) -> {
                Instant now = now();
                IdempotencyRecord live = RecordTransitions.live(current, now);
                IdempotencyRecord next = step.apply(live, now);
                done[0] = next != null;
                return next != null ? next : live;
            });
            return done[0];
        });
    }

    private Receipt liveReceipt(String callId) {
        TimedReceipt r = receipts.getIfPresent(callId);
        return r == null || !r.expiresAt().isAfter(now()) ? null : r.receipt();
    }

    private void unindex(Receipt r) {
        if (r.bizId() != null) {
            receiptsByBiz.computeIfPresent(r.bizId(), (b, index) -> {
                index.remove(r.sortKey());
                return index.isEmpty() ? null : index;
            });
        }
    }

    private <T> CompletionStage<T> run(Supplier<T> op) {
        if (closed) {
            return CompletableFuture.failedFuture(new StoreUnavailableException("memory store is closed"));
        }
        try {
            return CompletableFuture.completedFuture(op.get());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
