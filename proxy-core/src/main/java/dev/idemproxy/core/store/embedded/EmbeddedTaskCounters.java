package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.store.TaskBudgetStore;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * The embedded backend's task retry counters ({@link EmbeddedStore}): kept in memory
 * ({@link LogState#tasks}, window key → count and expiry) and each charge written to the log
 * before it is acknowledged. A charge is atomic because every operation runs on the store's
 * executor. An expired counter reads as zero and is dropped by the compaction. Thread-safe.
 */
final class EmbeddedTaskCounters implements TaskBudgetStore {
    private final Batcher batcher;
    private final LogState state;
    private final LogWrites writes;
    private final Clock clock;

    EmbeddedTaskCounters(Batcher batcher, LogState state, LogWrites writes, Clock clock) {
        this.batcher = batcher;
        this.state = state;
        this.writes = writes;
        this.clock = clock;
    }

    @Override
    public CompletionStage<Long> chargeTaskRetry(String windowKey, int maxRetries, Duration ttl) {
        return batcher.submit(() -> {
            long now = clock.millis();
            long used = used(windowKey, now);
            if (used >= maxRetries) {
                return -1L;
            }
            long expiresAt = now + ttl.toMillis();
            state.pointTask(windowKey, used + 1, expiresAt, writes.task(windowKey, used + 1, expiresAt));
            return used + 1;
        });
    }

    @Override
    public CompletionStage<Long> taskRetriesUsed(String windowKey) {
        return batcher.submit(() -> used(windowKey, clock.millis()));
    }

    private long used(String windowKey, long now) {
        LogState.TaskAt t = state.tasks.get(windowKey);
        return t == null || t.expiresAt() <= now ? 0 : t.count();
    }
}
