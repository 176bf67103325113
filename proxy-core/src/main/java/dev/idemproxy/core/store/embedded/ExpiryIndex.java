package dev.idemproxy.core.store.embedded;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * An index of what expires when: keys {@code <16-digit epoch ms> <kind> <id>}, so the expired
 * entries are a prefix of the sorted map. Not thread-safe: used only on the store thread.
 */
final class ExpiryIndex {
    static final char RECORD = 'R';
    static final char RECEIPT = 'C';
    static final char TASK = 'T';

    private final Map<String, String> index;

    ExpiryIndex(Map<String, String> index) {
        this.index = index;
    }

    static String key(Instant expiresAt, char kind, String id) {
        String millis = Long.toString(expiresAt.toEpochMilli());
        return "0".repeat(Math.max(0, 16 - millis.length())) + millis + " " + kind + " " + id;
    }

    void add(Instant expiresAt, char kind, String id) {
        index.put(key(expiresAt, kind, id), "");
    }

    void remove(Instant expiresAt, char kind, String id) {
        index.remove(key(expiresAt, kind, id));
    }

    /** A purge target: its kind and id. */
    record Due(char kind, String id) {
    }

    /** Removes and returns up to {@code max} entries due at or before {@code now}, oldest first. */
    List<Due> pollDue(Instant now, int max) {
        String limit = key(now, '~', "");
        List<String> keys = new ArrayList<>();
        Iterator<String> it = index.keySet().iterator();  // sorted: MVMap iterates in key order
        while (it.hasNext() && keys.size() < max) {
            String k = it.next();
            if (k.compareTo(limit) > 0) {
                break;
            }
            keys.add(k);
        }
        List<Due> due = new ArrayList<>(keys.size());
        for (String k : keys) {
            index.remove(k);
            due.add(new Due(k.charAt(17), k.substring(19)));
        }
        return due;
    }
}
