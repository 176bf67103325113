package dev.idemproxy.core.store.embedded;

import java.nio.ByteBuffer;
import java.time.Instant;
import org.h2.mvstore.MVMap;

/**
 * Task retry counters in MVStore: {@code tasks} (window key → count and expiry millis, 16 bytes),
 * with their expiry in the shared {@link ExpiryIndex}. Not thread-safe: used only on the store
 * thread, which is what makes a charge atomic.
 */
final class EmbeddedTaskCounters {
    private final MVMap<String, byte[]> counters;
    private final ExpiryIndex expiry;

    EmbeddedTaskCounters(MVMap<String, byte[]> counters, ExpiryIndex expiry) {
        this.counters = counters;
        this.expiry = expiry;
    }

    /** A stored counter: its count and when it expires. */
    private record Stored(long used, Instant expiresAt) {
    }

    long charge(String windowKey, int maxRetries, Instant now, Instant expiresAt) {
        Stored old = read(windowKey);
        long used = old == null || !old.expiresAt().isAfter(now) ? 0 : old.used();
        if (used >= maxRetries) {
            return -1;
        }
        if (old != null) {
            expiry.remove(old.expiresAt(), ExpiryIndex.TASK, windowKey);
        }
        counters.put(windowKey, ByteBuffer.allocate(16).putLong(used + 1).putLong(expiresAt.toEpochMilli()).array());
        expiry.add(expiresAt, ExpiryIndex.TASK, windowKey);
        return used + 1;
    }

    long used(String windowKey, Instant now) {
        Stored s = read(windowKey);
        return s == null || !s.expiresAt().isAfter(now) ? 0 : s.used();
    }

    /** Deletes the counter if it has expired by {@code now} (the purge's check). */
    void removeIfExpired(String windowKey, Instant now) {
        Stored s = read(windowKey);
        if (s != null && !s.expiresAt().isAfter(now)) {
            counters.remove(windowKey);
        }
    }

    private Stored read(String windowKey) {
        byte[] value = counters.get(windowKey);
        if (value == null) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(value);
        return new Stored(b.getLong(), Instant.ofEpochMilli(b.getLong()));
    }
}
