package dev.idemproxy.core.store.memory;

import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.StoredHeader;
import java.util.List;

/**
 * What the memory store's entries cost on the heap, estimated, and how one share of its byte
 * bound turns that into Caffeine weights. The estimates count the variable parts exactly (string
 * characters, bodies, headers) and the objects around them at their size on a 64-bit JVM with
 * compressed pointers (a Latin-1 string about 40 bytes besides its characters, a cache entry and
 * its map node about 100); they are meant to be within a few tens of per cent, which is enough to
 * keep the store inside its share of the heap. This class is immutable.
 *
 * @param share      the bytes this kind of entry may hold in all
 * @param maxEntries the most entries of this kind
 */
record MemoryFootprint(long share, long maxEntries) {
    /** A string's own object and array headers, besides one byte per (Latin-1) character. */
    private static final int STRING = 40;
    /** A Caffeine entry with its map node and the record object itself, and their instants. */
    private static final int ENTRY = 260;
    /** A stored header: its object, its two strings and its slot in the list. */
    private static final int HEADER = 24 + 2 * STRING + 4;
    /** A response or request object, its header list and its body array's header. */
    private static final int MESSAGE = 32 + 40 + 16;

    /** Bytes per unit of weight: each entry weighs at least one, so the count stays within {@code maxEntries}. */
    long unit() {
        return Math.max(1, share / maxEntries);
    }

    /** The most weight the cache may hold: {@code maxEntries} units, or the share if that is less. */
    long capacity() {
        return Math.min(maxEntries, share / unit()) * unit();
    }

    /** The weight of an entry of {@code bytes}: at least one unit, and at most what a weigher may return. */
    int weight(long bytes) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(unit(), bytes));
    }

    static long of(String id, IdempotencyRecord r) {
        long bytes = ENTRY + chars(id) + chars(r.owner()) + chars(r.callId()) + chars(r.fingerprint());
        if (r.response() != null) {
            bytes += MESSAGE + r.response().bodyLength() + headers(r.response().headers());
        }
        return bytes;
    }

    static long of(Receipt r) {
        return ENTRY + chars(r.callId()) + chars(r.bizId()) + chars(r.key()) + chars(r.route()) + chars(r.status())
                + chars(r.reason()) + (r.bizId() == null ? 0 : 2 * STRING + 64 + chars(r.bizId()) + chars(r.callId()));
    }

    static long of(DeadLetter d) {
        long bytes = ENTRY + 2 * (chars(d.id()) + STRING + 32) + chars(d.callId()) + chars(d.taskId()) + chars(d.bizId())
                + chars(d.reason()) + chars(d.recordKey().route()) + chars(d.recordKey().scopeHash())
                + chars(d.recordKey().key());
        return bytes + MESSAGE + chars(d.request().method()) + chars(d.request().uri()) + d.request().bodyLength()
                + headers(d.request().headers());
    }

    private static long headers(List<StoredHeader> headers) {
        long bytes = 0;
        for (StoredHeader h : headers) {
            bytes += HEADER + h.name().length() + h.value().length();
        }
        return bytes;
    }

    private static long chars(String s) {
        return s == null ? 0 : STRING + s.length();
    }
}
