package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.store.TaskBudgetStore;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;
import org.h2.mvstore.MVMap;

/**
 * The embedded backend's task retry counters ({@link EmbeddedStore}): {@code tasks} (window key →
 * count and expiry millis, 16 bytes). A charge is atomic because every operation runs on the
 * store thread; it is committed within about a second (a crash loses at most the last second's
 * charges). An expired counter reads as zero until the purge sweeps it ({@link #purgeIfExpired}).
 * Thread-safe as used through {@link StoreThread}.
 */
final class EmbeddedTaskCounters implements TaskBudgetStore {
    private final StoreThread thread;
    private final MVMap<String, byte[]> counters;
    private final Clock clock;

    EmbeddedTaskCounters(StoreThread thread, MVMap<String, byte[]> counters, Clock clock) {
        this.thread = thread;
        this.counters = counters;
        this.clock = clock;
    }

    @Override
    public CompletionStage<Long> chargeTaskRetry(String windowKey, int maxRetries, Duration ttl) {
        return thread.submit(() -> {
            Instant now = now();
            long used = used(windowKey, now);
            if (used >= maxRetries) {
                return -1L;
            }
            counters.put(windowKey, ByteBuffer.allocate(16).putLong(used + 1).putLong(now.plus(ttl).toEpochMilli()).array());
            return used + 1;
        });
    }

    @Override
    public CompletionStage<Long> taskRetriesUsed(String windowKey) {
        return thread.submit(() -> used(windowKey, now()));
    }

    private Instant now() {
        return Instant.ofEpochMilli(clock.millis());
    }

    private long used(String windowKey, Instant now) {
        byte[] value = counters.get(windowKey);
        if (value == null) {
            return 0;
        }
        ByteBuffer b = ByteBuffer.wrap(value);
        long used = b.getLong();
        return b.getLong() <= now.toEpochMilli() ? 0 : used;
    }

    /** Deletes the counter {@code value} (seen by the purge's sweep) if it expired by {@code nowMillis}. Store thread only. */
    boolean purgeIfExpired(String windowKey, byte[] value, long nowMillis) {
        if (ByteBuffer.wrap(value).getLong(Long.BYTES) > nowMillis) {
            return false;
        }
        counters.remove(windowKey);
        return true;
    }
}
