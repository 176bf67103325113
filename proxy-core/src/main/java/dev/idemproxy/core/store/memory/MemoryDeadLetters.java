package dev.idemproxy.core.store.memory;

import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.DeadLetterPage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The in-memory dead-letter queue: entries by sort key (failedAt, id) plus an id index, bounded
 * by count and by their estimated heap ({@link MemoryFootprint}) by dropping the oldest entries;
 * the newest entry is always kept, however large. Thread-safe: every method is synchronized
 * (operations are short).
 */
final class MemoryDeadLetters {
    private final long maxEntries;
    private final long maxBytes;
    private final TreeMap<String, DeadLetter> bySortKey = new TreeMap<>();
    private final Map<String, String> sortKeyById = new HashMap<>();
    private long bytes;

    MemoryDeadLetters(long maxEntries, long maxBytes) {
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
    }

    synchronized void add(DeadLetter entry) {
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

    synchronized DeadLetterPage page(String cursor, int limit) {
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

    synchronized Optional<DeadLetter> get(String id) {
        String sortKey = sortKeyById.get(id);
        return sortKey == null ? Optional.empty() : Optional.of(bySortKey.get(sortKey));
    }

    synchronized boolean delete(String id) {
        String sortKey = sortKeyById.remove(id);
        DeadLetter gone = sortKey == null ? null : bySortKey.remove(sortKey);
        if (gone != null) {
            bytes -= MemoryFootprint.of(gone);
        }
        return gone != null;
    }

    synchronized long count() {
        return bySortKey.size();
    }
}
