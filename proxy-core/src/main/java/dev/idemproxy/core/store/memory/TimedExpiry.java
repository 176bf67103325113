package dev.idemproxy.core.store.memory;

import com.github.benmanes.caffeine.cache.Expiry;
import java.time.Instant;
import java.util.function.Function;

/**
 * Expires each value at its own instant (read from the value), measured on the cache's ticker,
 * which counts epoch milliseconds of the injected clock in nanoseconds. Stateless; thread-safe.
 */
final class TimedExpiry<K, V> implements Expiry<K, V> {
    private final Function<V, Instant> expiresAt;

    TimedExpiry(Function<V, Instant> expiresAt) {
        this.expiresAt = expiresAt;
    }

    private long remaining(V value, long currentTimeNanos) {
        long atNanos = Math.multiplyExact(expiresAt.apply(value).toEpochMilli(), 1_000_000L);
        return Math.max(0, atNanos - currentTimeNanos);
    }

    @Override
    public long expireAfterCreate(K key, V value, long currentTime) {
        return remaining(value, currentTime);
    }

    @Override
    public long expireAfterUpdate(K key, V value, long currentTime, long currentDuration) {
        return remaining(value, currentTime);
    }

    @Override
    public long expireAfterRead(K key, V value, long currentTime, long currentDuration) {
        return currentDuration;
    }
}
