package dev.idemproxy.core.store.embedded;

import java.nio.ByteBuffer;
import java.time.Instant;
import org.h2.mvstore.MVMap;

/**
 * Task retry counters in MVStore: {@code tasks} (window key → count and expiry millis, 16 bytes).
 * An expired counter reads as zero until the store's purge sweeps it ({@link #purgeIfExpired}).
 * Not thread-safe: used only on the store thread, which is what makes a charge atomic.
 */
final class EmbeddedTaskCounters {
    private final MVMap<String, byte[]> counters;

    EmbeddedTaskCounters(MVMap<String, byte[]> counters) {
        this.counters = counters;
    }

    long charge(String windowKey, int maxRetries, Instant now, Instant expiresAt) {
        long used = used(windowKey, now);
        if (used >= maxRetries) {
            return -1;
        }
        counters.put(windowKey, ByteBuffer.allocate(16).putLong(used + 1).putLong(expiresAt.toEpochMilli()).array());
        return used + 1;
    }

    long used(String windowKey, Instant now) {
        byte[] value = counters.get(windowKey);
        if (value == null) {
            return 0;
        }
        ByteBuffer b = ByteBuffer.wrap(value);
        long used = b.getLong();
        return b.getLong() <= now.toEpochMilli() ? 0 : used;
    }

    /** Deletes the counter {@code value} (seen by the purge's sweep) if it expired by {@code nowMillis}. */
    boolean purgeIfExpired(String windowKey, byte[] value, long nowMillis) {
        if (ByteBuffer.wrap(value).getLong(Long.BYTES) > nowMillis) {
            return false;
        }
        counters.remove(windowKey);
        return true;
    }
}
