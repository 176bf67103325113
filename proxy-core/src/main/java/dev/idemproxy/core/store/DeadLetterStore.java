package dev.idemproxy.core.store;

import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The dead-letter queue (docs/admin-api.md), one of a backend's four stores ({@link Stores}): entries stay
 * until deleted. Listed in a stable order,
 * (failedAt, id), in pages with an opaque cursor. Every operation is asynchronous and never
 * blocks its caller; a failure completes the stage with {@link StoreUnavailableException}. Times
 * are kept with millisecond precision. Implementations are thread-safe.
 */
public interface DeadLetterStore {

    /** Adds an entry; an entry with the same id is replaced. */
    CompletionStage<Void> addDeadLetter(DeadLetter entry);

    /**
     * Up to {@code limit} entries after {@code cursor} (null: from the start).
     *
     * @param cursor a {@link DeadLetterPage#nextCursor()} from an earlier page, or null
     * @param limit  at least 1
     */
    CompletionStage<DeadLetterPage> deadLetters(String cursor, int limit);

    /** The entry with this id, if any. */
    CompletionStage<Optional<DeadLetter>> deadLetter(String id);

    /** Deletes the entry with this id; false when there was none. */
    CompletionStage<Boolean> deleteDeadLetter(String id);

    /** How many entries there are. */
    CompletionStage<Long> deadLetterCount();
}
