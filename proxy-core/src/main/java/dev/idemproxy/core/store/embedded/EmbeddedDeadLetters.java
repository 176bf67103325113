package dev.idemproxy.core.store.embedded;

import static dev.idemproxy.core.util.Checks.requireArgument;

import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.DeadLetterPage;
import dev.idemproxy.core.store.DeadLetterStore;
import dev.idemproxy.core.store.StoreCodec;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.h2.mvstore.MVMap;

/**
 * The embedded backend's dead letters ({@link EmbeddedStore}): {@code dlq} (sort key → encoded
 * entry) and {@code dlqIds} (id → sort key). An added entry is committed to the file before its
 * future completes. The maps are used on the store thread only; thread-safe as used through
 * {@link StoreThread}.
 */
final class EmbeddedDeadLetters implements DeadLetterStore {
    private final StoreThread thread;
    private final MVMap<String, byte[]> bySortKey;
    private final MVMap<String, String> sortKeyById;

    EmbeddedDeadLetters(StoreThread thread, MVMap<String, byte[]> bySortKey, MVMap<String, String> sortKeyById) {
        this.thread = thread;
        this.bySortKey = bySortKey;
        this.sortKeyById = sortKeyById;
    }

    @Override
    public CompletionStage<Void> addDeadLetter(DeadLetter entry) {
        return thread.submit(() -> {
            delete(entry.id());
            bySortKey.put(entry.sortKey(), StoreCodec.encodeDeadLetter(entry));
            sortKeyById.put(entry.id(), entry.sortKey());
            thread.commitBeforeAnswering();
            return null;
        });
    }

    @Override
    public CompletionStage<DeadLetterPage> deadLetters(String cursor, int limit) {
        requireArgument(limit >= 1, "limit " + limit + " (expected: >= 1)");
        return thread.submit(() -> page(cursor, limit));
    }

    @Override
    public CompletionStage<Optional<DeadLetter>> deadLetter(String id) {
        return thread.submit(() -> {
            String sortKey = sortKeyById.get(id);
            byte[] value = sortKey == null ? null : bySortKey.get(sortKey);
            return value == null ? Optional.empty() : Optional.of(StoreCodec.decodeDeadLetter(value));
        });
    }

    @Override
    public CompletionStage<Boolean> deleteDeadLetter(String id) {
        return thread.submit(() -> delete(id));
    }

    @Override
    public CompletionStage<Long> deadLetterCount() {
        return thread.submit(bySortKey::sizeAsLong);
    }

    private DeadLetterPage page(String cursor, int limit) {
        String from = cursor == null ? null : bySortKey.higherKey(cursor);
        List<DeadLetter> entries = new ArrayList<>();
        if (cursor != null && from == null) {
            return new DeadLetterPage(entries, null);
        }
        Iterator<String> keys = bySortKey.keyIterator(from);
        while (keys.hasNext()) {
            String key = keys.next();
            if (entries.size() == limit) {
                return new DeadLetterPage(entries, entries.get(limit - 1).sortKey());
            }
            entries.add(StoreCodec.decodeDeadLetter(bySortKey.get(key)));
        }
        return new DeadLetterPage(entries, null);
    }

    private boolean delete(String id) {
        String sortKey = sortKeyById.remove(id);
        return sortKey != null && bySortKey.remove(sortKey) != null;
    }
}
