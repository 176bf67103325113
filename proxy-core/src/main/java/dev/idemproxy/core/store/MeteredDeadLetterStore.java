package dev.idemproxy.core.store;

import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * A dead-letter store, timed ({@link MeteredStores}): ops {@code dlq_add}, {@code dlq_list},
 * {@code dlq_get}, {@code dlq_delete} and {@code dlq_count}. Thread-safe if the store is.
 */
final class MeteredDeadLetterStore extends ForwardingDeadLetterStore {
    private final DeadLetterStore store;
    private final StoreMeter meter;

    MeteredDeadLetterStore(DeadLetterStore store, StoreMeter meter) {
        this.store = store;
        this.meter = meter;
    }

    @Override
    protected DeadLetterStore delegate() {
        return store;
    }

    @Override
    public CompletionStage<Void> addDeadLetter(DeadLetter entry) {
        return meter.timed("dlq_add", () -> store.addDeadLetter(entry));
    }

    @Override
    public CompletionStage<DeadLetterPage> deadLetters(String cursor, int limit) {
        return meter.timed("dlq_list", () -> store.deadLetters(cursor, limit));
    }

    @Override
    public CompletionStage<Optional<DeadLetter>> deadLetter(String id) {
        return meter.timed("dlq_get", () -> store.deadLetter(id));
    }

    @Override
    public CompletionStage<Boolean> deleteDeadLetter(String id) {
        return meter.timed("dlq_delete", () -> store.deleteDeadLetter(id));
    }

    @Override
    public CompletionStage<Long> deadLetterCount() {
        return meter.timed("dlq_count", store::deadLetterCount);
    }
}
