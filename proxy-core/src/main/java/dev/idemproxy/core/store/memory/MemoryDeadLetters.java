package dev.idemproxy.core.store.memory;

import static dev.idemproxy.core.util.Checks.requireArgument;

import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.DeadLetterPage;
import dev.idemproxy.core.store.DeadLetterStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;

/**
 * The memory backend's dead-letter queue ({@link MemoryStore}): entries by sort key (failedAt, id)
 * plus an id index, bounded by count and by their estimated heap ({@link MemoryFootprint}) by
 * dropping the oldest entries; the newest entry is always kept, however large. Thread-safe: every
 * access to the maps is synchronized (operations are short).
 */
final class MemoryDeadLetters implements DeadLetterStore {
    private final MemoryStore backend;
    private final long maxEntries;
    private final long maxBytes;
    private final TreeMap<String, DeadLetter> bySortKey = new TreeMap<>();
    private final Map<String, String> sortKeyById = new HashMap<>();
    private long bytes;

    MemoryDeadLetters(MemoryStore backend, long maxEntries, long maxBytes) {
        this.backend = backend;
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
    }

    @Override
    public CompletionStage<Void> addDeadLetter(DeadLetter entry) {
        return backend.run(() -> {
            add(entry);
            return null;
        });
    }

    @Override
    public CompletionStage<DeadLetterPage> deadLetters(String cursor, int limit) {
        requireArgument(limit >= 1, "limit " + limit + " (expected: >= 1)");
        return backend.run(() -> page(cursor, limit));
    }

    @Override
    public CompletionStage<Optional<DeadLetter>> deadLetter(String id) {
        return backend.run(() -> get(id));
    }

    @Override
    public CompletionStage<Boolean> deleteDeadLetter(String id) {
        return backend.run(() -> delete(id));
    }

    @Override
    public CompletionStage<Long> deadLetterCount() {
        return backend.run(this::count);
    }

    private synchronized void add(DeadLetter entry) {
        delete(entry.id());
        bySortKey.put(entry.sortKey(), entry);
        sortKeyById.put(entry.id(), entry.sortKey());
        bytes += MemoryFootprint.of(entry);
        while (bySortKey.size() > maxEntries || (bytes > maxBytes && bySortKey.size() > 1)) {
            DeadLetter oldest = bySortKey.pollFirstEntry().getValue();
            sortKeyById.remove(oldest.id());
            bytes -= MemoryFootprint.of(oldest);
        }
    }

    private synchronized DeadLetterPage page(String cursor, int limit) {
        Map<String, DeadLetter> tail = cursor == null ? bySortKey : bySortKey.tailMap(cursor, false);
        List<DeadLetter> entries = new ArrayList<>(Math.min(limit, tail.size()));
        for (DeadLetter d : tail.values()) {
            if (entries.size() == limit) {
                return new DeadLetterPage(entries, entries.get(limit - 1).sortKey());
            }
            entries.add(d);
        }
        return new DeadLetterPage(entries, null);
    }

    private synchronized Optional<DeadLetter> get(String id) {
        String sortKey = sortKeyById.get(id);
        return sortKey == null ? Optional.empty() : Optional.of(bySortKey.get(sortKey));
    }

    private synchronized boolean delete(String id) {
        String sortKey = sortKeyById.remove(id);
        DeadLetter gone = sortKey == null ? null : bySortKey.remove(sortKey);
        if (gone != null) {
            bytes -= MemoryFootprint.of(gone);
        }
        return gone != null;
    }

    private synchronized long count() {
        return bySortKey.size();
    }
}
