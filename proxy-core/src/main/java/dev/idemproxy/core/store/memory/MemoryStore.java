package dev.idemproxy.core.store.memory;

import dev.idemproxy.core.store.StorePolicy;
import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Ticker;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.WeightBudget;
import dev.idemproxy.core.util.Mistakes;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The in-memory backend: Caffeine caches bounded by {@code maxEntries} and {@code maxBytes}, each
 * value expiring at its own instant on the injected clock, handed out as four stores
 * ({@link MemoryRecords}, {@link MemoryReceipts}, {@link MemoryDeadLetters},
 * {@link MemoryTaskCounters}) that share this object's clock and lifetime.
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
public final class MemoryStore {
    /** The smallest byte bound: a few hundred small records. */
    public static final long MIN_BYTES = StorePolicy.MEMORY_MIN_BYTES;

    private final Clock clock;
    private final MemoryRecords records;
    private final MemoryReceipts receipts;
    private final MemoryDeadLetters deadLetters;
    private final MemoryTaskCounters taskCounters;
    private final Stores stores;
    private volatile boolean closed;

    private MemoryStore(long maxEntries, long maxBytes, Clock clock, Mistakes mistakes) {
        this.clock = clock;
        this.receipts = new MemoryReceipts(this, new WeightBudget(maxBytes / 4, maxEntries));
        this.records = new MemoryRecords(this, new WeightBudget(maxBytes / 2, maxEntries), receipts, mistakes);
        this.deadLetters = new MemoryDeadLetters(this, maxEntries, maxBytes / 4);
        this.taskCounters = new MemoryTaskCounters(this, maxEntries);
        this.stores = new Stores(records, receipts, deadLetters, taskCounters);
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

    /** As {@link #create(long, long, Clock)}, with {@code mistakes} planted: for the deterministic simulation only. */
    public static Stores create(long maxEntries, long maxBytes, Clock clock, Mistakes mistakes) {
        return backend(maxEntries, maxBytes, clock, requireNonNull(mistakes, "mistakes")).stores();
    }

    /** As {@link #create(long, long, Clock)} with the default byte bound, a quarter of the heap. */
    public static Stores create(long maxEntries, Clock clock) {
        return create(maxEntries, defaultMaxBytes(), clock);
    }

    /** A quarter of the JVM's maximum heap ({@code -Xmx}) in whole MiB, and at least {@link #MIN_BYTES}. */
    public static long defaultMaxBytes() {
        return StorePolicy.defaultMemoryMaxBytes();
    }

    /** The backend itself, for tests that look inside it. */
    static MemoryStore backend(long maxEntries, long maxBytes, Clock clock) {
        return backend(maxEntries, maxBytes, clock, Mistakes.NONE);
    }

    private static MemoryStore backend(long maxEntries, long maxBytes, Clock clock, Mistakes mistakes) {
        requireArgument(maxEntries >= 1, "maxEntries " + maxEntries + " (expected: >= 1)");
        requireArgument(maxBytes >= MIN_BYTES, "maxBytes " + maxBytes + " (expected: >= " + MIN_BYTES + ")");
        return new MemoryStore(maxEntries, maxBytes, requireNonNull(clock, "clock"), mistakes);
    }

    Stores stores() {
        return stores;
    }

    /** The injected clock as a Caffeine ticker: its epoch milliseconds, in nanoseconds. */
    Ticker ticker() {
        return () -> Math.multiplyExact(clock.millis(), 1_000_000L);
    }

    Instant now() {
        return Instant.ofEpochMilli(clock.millis());
    }

    /** Runs {@code op} now, on the caller's thread; a closed backend or a throw fails the stage. */
    <T> CompletionStage<T> run(Supplier<T> op) {
        if (closed) {
            return CompletableFuture.failedFuture(new StoreUnavailableException("memory store is closed"));
        }
        try {
            return CompletableFuture.completedFuture(op.get());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    boolean isAvailable() {
        return !closed;
    }

    /** Closes the backend: every store's operations fail from now on, and the caches are emptied. */
    void close() {
        closed = true;
        records.clear();
        receipts.clear();
        taskCounters.clear();
    }

    /** Runs Caffeine's pending maintenance (evictions) now; for tests. */
    void cleanUp() {
        records.cleanUp();
        receipts.cleanUp();
    }

    /** Records held now, in flight and ended; for tests. */
    long recordCount() {
        return records.count();
    }

    /** Receipts held now; for tests. */
    long receiptCount() {
        return receipts.count();
    }
}
