package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.DeadLetterPage;
import dev.idemproxy.core.store.StoreCodec;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import org.h2.mvstore.MVMap;

/**
 * Dead letters in MVStore: {@code dlq} (sort key → encoded entry) and {@code dlqIds} (id → sort
 * key). Not thread-safe: used only on the store thread.
 */
final class EmbeddedDeadLetters {
    private final MVMap<String, byte[]> bySortKey;
    private final MVMap<String, String> sortKeyById;

    EmbeddedDeadLetters(MVMap<String, byte[]> bySortKey, MVMap<String, String> sortKeyById) {
        this.bySortKey = bySortKey;
        this.sortKeyById = sortKeyById;
    }

    void add(DeadLetter entry) {
        delete(entry.id());
        bySortKey.put(entry.sortKey(), StoreCodec.encodeDeadLetter(entry));
        sortKeyById.put(entry.id(), entry.sortKey());
    }

    DeadLetterPage page(String cursor, int limit) {
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

    Optional<DeadLetter> get(String id) {
        String sortKey = sortKeyById.get(id);
        byte[] value = sortKey == null ? null : bySortKey.get(sortKey);
        return value == null ? Optional.empty() : Optional.of(StoreCodec.decodeDeadLetter(value));
    }

    boolean delete(String id) {
        String sortKey = sortKeyById.remove(id);
        return sortKey != null && bySortKey.remove(sortKey) != null;
    }

    long count() {
        return bySortKey.sizeAsLong();
    }
}
