package dev.idemproxy.core.store;

import static dev.idemproxy.core.util.Checks.requireArgument;

/**
 * A Caffeine weight bound that caps a cache both by count and by (estimated) bytes: every entry
 * weighs its bytes in units of {@code maxBytes / maxEntries}, rounded up and at least one unit,
 * and the cache holds at most {@code maxEntries} units or {@code maxBytes} worth of them,
 * whichever is less. Used by the near-cache and the memory store. This class is immutable.
 *
 * @param maxBytes   the bytes the cache may hold in all, at least 1
 * @param maxEntries the most entries, at least 1
 */
public record WeightBudget(long maxBytes, long maxEntries) {
    public WeightBudget {
        requireArgument(maxBytes >= 1, "maxBytes " + maxBytes + " (expected: >= 1)");
        requireArgument(maxEntries >= 1, "maxEntries " + maxEntries + " (expected: >= 1)");
    }

    /** Bytes per unit of weight. */
    public long unit() {
        return Math.max(1, maxBytes / maxEntries);
    }

    /** The most weight the cache may hold, for {@code maximumWeight}. */
    public long capacity() {
        return Math.min(maxEntries, maxBytes / unit());
    }

    /** The weight of an entry of {@code bytes}: at least one unit, at most what a weigher may return. */
    public int weight(long bytes) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, (bytes + unit() - 1) / unit()));
    }
}
