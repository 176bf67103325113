package dev.idemproxy.core.store;

import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * A dead-letter store that passes every operation to {@link #delegate()}, asked once per
 * operation; a decorator overrides only what it changes. Thread-safe if the delegate is.
 */
public abstract class ForwardingDeadLetterStore implements DeadLetterStore {

    protected ForwardingDeadLetterStore() {
    }

    /** The store the operations go to; non-null. */
    protected abstract DeadLetterStore delegate();

    @Override
    public CompletionStage<Void> addDeadLetter(DeadLetter entry) {
        return delegate().addDeadLetter(entry);
    }

    @Override
    public CompletionStage<DeadLetterPage> deadLetters(String cursor, int limit) {
        return delegate().deadLetters(cursor, limit);
    }

    @Override
    public CompletionStage<Optional<DeadLetter>> deadLetter(String id) {
        return delegate().deadLetter(id);
    }

    @Override
    public CompletionStage<Boolean> deleteDeadLetter(String id) {
        return delegate().deleteDeadLetter(id);
    }

    @Override
    public CompletionStage<Long> deadLetterCount() {
        return delegate().deadLetterCount();
    }
}
