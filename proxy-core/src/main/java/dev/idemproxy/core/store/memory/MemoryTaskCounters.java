package dev.idemproxy.core.store.memory;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.idemproxy.core.store.TaskBudgetStore;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;

/**
 * The memory backend's task retry counters ({@link MemoryStore}): a Caffeine cache bounded by
 * count (an evicted counter starts again from zero), each counter expiring at its own instant. A
 * charge is atomic per counter. Thread-safe.
 */
final class MemoryTaskCounters implements TaskBudgetStore {
    private final MemoryStore backend;
    private final Cache<String, TimedCount> counters;

    private record TimedCount(long used, Instant expiresAt) {
    }

    MemoryTaskCounters(MemoryStore backend, long maxEntries) {
        this.backend = backend;
        this.counters = Caffeine.newBuilder()
                .maximumSize(maxEntries)
                .ticker(backend.ticker())
                .expireAfter(new TimedExpiry<String, TimedCount>(TimedCount::expiresAt))
                .executor(Runnable::run)
                .build();
    }

    @Override
    public CompletionStage<Long> chargeTaskRetry(String windowKey, int maxRetries, Duration ttl) {
        return backend.run(() -> {
            long[] charged = {-1};
            counters.asMap().compute(windowKey, (k, current) -> {
                Instant now = backend.now();
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
        return backend.run(() -> {
            TimedCount c = counters.getIfPresent(windowKey);
            return c == null || !c.expiresAt().isAfter(backend.now()) ? 0L : c.used();
        });
    }

    void clear() {
        counters.invalidateAll();
    }
}
