package dev.idemproxy.core.store.memory;

import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.WeightBudget;
import java.util.List;

/**
 * What the memory store's entries cost on the heap, estimated. The estimates count the variable
 * parts exactly (string characters, bodies, headers) and the objects around them at their size on
 * a 64-bit JVM with compressed pointers (a Latin-1 string about 40 bytes besides its characters, a
 * cache entry and its map node about 100); they are meant to be within a few tens of per cent,
 * which is enough to keep the store inside its share of the heap ({@link WeightBudget} turns them
 * into Caffeine weights). Stateless.
 */
final class MemoryFootprint {
    /** A string's own object and array headers, besides one byte per (Latin-1) character. */
    private static final int STRING = 40;
    /** A Caffeine entry with its map node and the record object itself, and their instants. */
    private static final int ENTRY = 260;
    /** A stored header: its object, its two strings and its slot in the list. */
    private static final int HEADER = 24 + 2 * STRING + 4;
    /** A response or request object, its header list and its body array's header. */
    private static final int MESSAGE = 32 + 40 + 16;
    /** A kept try: its object (its strings are constants or shared) and its slot in the list. */
    private static final int TRY = 72;
    /** A receipt's entry in the index of recent calls: a skip-list node (the call id is the receipt's own). */
    private static final int RECENT = 48;

    private MemoryFootprint() {}

    static long of(String id, IdempotencyRecord r) {
        long bytes = ENTRY + chars(id) + chars(r.owner()) + chars(r.callId()) + chars(r.fingerprint());
        if (r.response() != null) {
            bytes += MESSAGE + r.response().bodyLength() + headers(r.response().headers());
        }
        return bytes;
    }

    static long of(Receipt r) {
        return ENTRY + chars(r.callId()) + chars(r.bizId()) + chars(r.key()) + chars(r.route()) + chars(r.status())
                + chars(r.reason()) + (r.bizId() == null ? 0 : 2 * STRING + 64 + chars(r.bizId()) + chars(r.callId()))
                + RECENT + detail(r);
    }

    /** A receipt's task id, tries and heads (one array). */
    private static long detail(Receipt r) {
        return chars(r.taskId()) + (long) TRY * r.tries().tries().size() + (r.heads() == null ? 0 : 32 + r.heads().size());
    }

    static long of(DeadLetter d) {
        long bytes = ENTRY + 2 * (chars(d.id()) + STRING + 32) + chars(d.callId()) + chars(d.taskId()) + chars(d.bizId())
                + chars(d.owner())
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
