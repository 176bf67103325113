package dev.idemproxy.core.store.embedded;

import static dev.idemproxy.core.util.Checks.requireArgument;

import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.DeadLetterPage;
import dev.idemproxy.core.store.DeadLetterStore;
import dev.idemproxy.core.store.StoreCodec;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The embedded backend's dead letters ({@link EmbeddedStore}): each entry a log frame, listed in
 * (failedAt, id) order from {@link LogState}'s sorted map of their positions. An added or deleted
 * entry is written to the log before it is acknowledged. Thread-safe.
 */
final class EmbeddedDeadLetters implements DeadLetterStore {
    private final Batcher batcher;
    private final LogState state;
    private final LogWrites writes;

    EmbeddedDeadLetters(Batcher batcher, LogState state, LogWrites writes) {
        this.batcher = batcher;
        this.state = state;
        this.writes = writes;
    }

    @Override
    public CompletionStage<Void> addDeadLetter(DeadLetter entry) {
        return batcher.submit(() -> {
            state.pointDeadLetter(entry.id(), entry.sortKey(), writes.deadLetter(entry));
            return null;
        });
    }

    @Override
    public CompletionStage<DeadLetterPage> deadLetters(String cursor, int limit) {
        requireArgument(limit >= 1, "limit " + limit + " (expected: >= 1)");
        return batcher.submit(() -> {
            List<DeadLetter> entries = new ArrayList<>();
            Map<String, String> after = cursor == null ? state.deadLetterOrder : state.deadLetterOrder.tailMap(cursor, false);
            for (String id : after.values()) {
                if (entries.size() == limit) {
                    return new DeadLetterPage(entries, entries.get(limit - 1).sortKey());
                }
                entries.add(read(id));
            }
            return new DeadLetterPage(entries, null);
        });
    }

    @Override
    public CompletionStage<Optional<DeadLetter>> deadLetter(String id) {
        return batcher.submit(() -> Optional.ofNullable(state.deadLetters.containsKey(id) ? read(id) : null));
    }

    @Override
    public CompletionStage<Boolean> deleteDeadLetter(String id) {
        return batcher.submit(() -> {
            if (!state.deadLetters.containsKey(id)) {
                return false;
            }
            writes.deadLetterDeleted(id);
            return state.dropDeadLetter(id);
        });
    }

    @Override
    public CompletionStage<Long> deadLetterCount() {
        return batcher.submit(() -> (long) state.deadLetters.size());
    }

    private DeadLetter read(String id) throws java.io.IOException {
        ByteBuffer f = state.log.read(state.deadLetters.get(id).position());
        while (f != null && f.hasRemaining()) {
            byte k = f.get();
            if (k == LogFormat.DEAD_LETTER) {
                LogFormat.skipBytes(f);
                LogFormat.skipBytes(f);
                return StoreCodec.decodeDeadLetter(LogFormat.getBytes(f));
            }
            LogFormat.skipPart(f, k);
        }
        throw new IllegalStateException("dead letter " + id + " is not where the index says");
    }
}
