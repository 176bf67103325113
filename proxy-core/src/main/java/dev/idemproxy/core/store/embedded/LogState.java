package dev.idemproxy.core.store.embedded;

import static dev.idemproxy.core.store.embedded.LogFormat.DEAD_LETTER;
import static dev.idemproxy.core.store.embedded.LogFormat.DEAD_LETTER_DELETED;
import static dev.idemproxy.core.store.embedded.LogFormat.RECEIPT;
import static dev.idemproxy.core.store.embedded.LogFormat.RECORD;
import static dev.idemproxy.core.store.embedded.LogFormat.RECORD_DELETED;
import static dev.idemproxy.core.store.embedded.LogFormat.TASK;

import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.StoreCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the embedded log holds, in memory: where the latest frame of every record (by record id),
 * receipt (by call id) and business id's receipts are ({@link LongIndex}es of positions, about 11
 * bytes an entry), the dead letters' and task counters' frames in maps, and how many parts of each
 * segment are still pointed at. Values themselves stay in the log and are read back when needed,
 * but for the records of calls in flight, which a small cache keeps decoded (a call's completion
 * reads the claim it made). Both recovery (replaying every frame) and the live operations change
 * it through the same {@code point...} methods. Executor only.
 */
final class LogState {
    private static final long SEED_RECORD = 1;
    private static final long SEED_RECEIPT = 2;
    private static final long SEED_BIZ = 3;
    private static final int IN_FLIGHT_CACHE = 4096;

    final SegmentLog log;
    final LongIndex records = new LongIndex();
    final LongIndex receipts = new LongIndex();
    final LongIndex biz = new LongIndex();
    /** Dead letters: id → (sort key, frame); sort key → id. */
    final Map<String, DeadLetterAt> deadLetters = new HashMap<>();
    final TreeMap<String, String> deadLetterOrder = new TreeMap<>();
    final Map<String, TaskAt> tasks = new HashMap<>();
    /**
     * The newest {@value #RECENT_CALLS} receipts' call ids (a call id begins with its call's start
     * time, so their order is the calls' order), for the listing of recent calls; an id whose
     * receipt is gone is dropped when a listing meets it.
     */
    final java.util.TreeSet<String> recent = new java.util.TreeSet<>();
    static final int RECENT_CALLS = 10_000;
    /** Records written lately that are in flight, by record id: a completion finds its claim here. */
    private final Map<String, Cached> inFlight = new java.util.LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Cached> eldest) {
            return size() > IN_FLIGHT_CACHE;
        }
    };

    record DeadLetterAt(String sortKey, long position) {
    }

    record TaskAt(long count, long expiresAt, long position) {
    }

    record Cached(IdempotencyRecord record, long position, String receiptCallId) {
    }

    LogState(SegmentLog log) {
        this.log = log;
    }

    static int recordTag(String id) {
        return LongIndex.tag(LongIndex.hash(SEED_RECORD, id));
    }

    static int receiptTag(String callId) {
        return LongIndex.tag(LongIndex.hash(SEED_RECEIPT, callId));
    }

    static int bizTag(String bizId) {
        return LongIndex.tag(LongIndex.hash(SEED_BIZ, bizId));
    }

    // ---------------------------------------------------------------- finding

    /** The slot of record {@code id} in {@link #records}, or -1. */
    int recordSlot(String id, int tag) {
        Cached c = inFlight.get(id);
        if (c != null) {
            int s = slotAt(records, tag, c.position);
            if (s >= 0) {
                return s;
            }
        }
        for (int s = records.first(tag); s >= 0; s = records.next(tag, s)) {
            if (namesAt(records.position(s), RECORD, id)) {
                return s;
            }
        }
        return -1;
    }

    /** The slot of the receipt with {@code callId} in {@link #receipts}, or -1; {@code hint} a position it may be at (or 0). */
    int receiptSlot(String callId, int tag, long hint) {
        if (hint > 0) {
            int s = slotAt(receipts, tag, hint);
            if (s >= 0) {
                return s;
            }
        }
        for (int s = receipts.first(tag); s >= 0; s = receipts.next(tag, s)) {
            if (namesAt(receipts.position(s), RECEIPT, callId)) {
                return s;
            }
        }
        return -1;
    }

    static int slotAt(LongIndex index, int tag, long position) {
        for (int s = index.first(tag); s >= 0; s = index.next(tag, s)) {
            if (index.position(s) == position) {
                return s;
            }
        }
        return -1;
    }

    /** Whether the frame at {@code position} has a part of {@code kind} whose name is {@code name}. */
    private boolean namesAt(long position, byte kind, String name) {
        ByteBuffer f = frame(position);
        if (f == null) {
            return false;
        }
        while (f.hasRemaining()) {
            byte k = f.get();
            if (k == kind) {
                return LogFormat.stringEquals(f, name);
            }
            LogFormat.skipPart(f, k);
        }
        return false;
    }

    private ByteBuffer frame(long position) {
        try {
            return log.read(position);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The record at {@code position} (the record part of its frame); null when there is none. */
    IdempotencyRecord recordAt(long position, String id) {
        Cached c = inFlight.get(id);
        if (c != null && c.position == position) {
            return c.record;
        }
        ByteBuffer f = frame(position);
        while (f != null && f.hasRemaining()) {
            byte k = f.get();
            if (k == RECORD) {
                LogFormat.skipBytes(f);
                f.getLong();
                return LogFormat.getRecord(f);
            }
            LogFormat.skipPart(f, k);
        }
        return null;
    }

    /** The receipt at {@code position} if it has not expired by {@code nowMillis}; null otherwise. */
    Receipt receiptAt(long position, long nowMillis) {
        ByteBuffer f = frame(position);
        while (f != null && f.hasRemaining()) {
            byte k = f.get();
            if (k == RECEIPT) {
                LogFormat.skipBytes(f);
                LogFormat.getNullableString(f);
                long expiresAt = f.getLong();
                f.getLong();  // createdAt
                return expiresAt <= nowMillis ? null : StoreCodec.decodeReceipt(LogFormat.getBytes(f));
            }
            LogFormat.skipPart(f, k);
        }
        return null;
    }

    /** The cached claim of record {@code id}, or null. */
    Cached cached(String id) {
        return inFlight.get(id);
    }

    void cache(String id, IdempotencyRecord record, long position, String receiptCallId) {
        if (record != null && record.state() == IdempotencyRecord.State.IN_FLIGHT) {
            inFlight.put(id, new Cached(record, position, receiptCallId));
        } else {
            inFlight.remove(id);
        }
    }

    // ---------------------------------------------------------------- pointing (live writes and recovery alike)

    void pointRecord(int tag, int slot, long position) {
        if (slot >= 0) {
            release(records.position(slot));
            records.setPosition(slot, position);
        } else {
            records.insert(tag, position);
        }
        retain(position);
    }

    void dropRecord(int slot) {
        release(records.position(slot));
        records.removeAt(slot);
    }

    void pointReceipt(int tag, int slot, String bizId, long position) {
        long old = 0;
        if (slot >= 0) {
            old = receipts.position(slot);
            release(old);
            receipts.setPosition(slot, position);
        } else {
            receipts.insert(tag, position);
        }
        retain(position);
        if (bizId != null) {
            int b = bizTag(bizId);
            int s = old > 0 ? slotAt(biz, b, old) : -1;
            if (s >= 0) {
                biz.setPosition(s, position);
            } else {
                biz.insert(b, position);
            }
        }
    }

    void dropReceipt(int slot, String bizId) {
        long old = receipts.position(slot);
        release(old);
        receipts.removeAt(slot);
        if (bizId != null) {
            int s = slotAt(biz, bizTag(bizId), old);
            if (s >= 0) {
                biz.removeAt(s);
            }
        }
    }

    void pointDeadLetter(String id, String sortKey, long position) {
        DeadLetterAt old = deadLetters.put(id, new DeadLetterAt(sortKey, position));
        if (old != null) {
            release(old.position);
            deadLetterOrder.remove(old.sortKey);
        }
        deadLetterOrder.put(sortKey, id);
        retain(position);
    }

    boolean dropDeadLetter(String id) {
        DeadLetterAt old = deadLetters.remove(id);
        if (old == null) {
            return false;
        }
        release(old.position);
        deadLetterOrder.remove(old.sortKey);
        return true;
    }

    void pointTask(String key, long count, long expiresAt, long position) {
        TaskAt old = tasks.put(key, new TaskAt(count, expiresAt, position));
        if (old != null) {
            release(old.position);
        }
        retain(position);
    }

    void dropTask(String key) {
        TaskAt old = tasks.remove(key);
        if (old != null) {
            release(old.position);
        }
    }

    private void retain(long position) {
        SegmentLog.Seg s = log.segmentOf(position);
        if (s != null) {
            s.liveParts++;
        }
    }

    private void release(long position) {
        SegmentLog.Seg s = log.segmentOf(position);
        if (s != null) {
            s.liveParts--;
        }
    }

    /** Lists the receipt of {@code callId} among the recent calls (once, however often it is written). */
    void noteRecent(String callId) {
        if (recent.add(callId) && recent.size() > RECENT_CALLS) {
            recent.pollFirst();
        }
    }

    // ---------------------------------------------------------------- recovery

    /** Applies one frame read back from the log at {@code position}; returns its parts' latest expiry. */
    long replay(ByteBuffer f, long position) {
        long maxExpiry = 0;
        int parts = 0;
        while (f.hasRemaining()) {
            byte k = f.get();
            parts++;
            switch (k) {
                case RECORD -> {
                    String id = LogFormat.getString(f);
                    long expiresAt = f.getLong();
                    LogFormat.skipRecord(f);
                    int tag = recordTag(id);
                    pointRecord(tag, recordSlot(id, tag), position);
                    maxExpiry = Math.max(maxExpiry, expiresAt);
                }
                case RECEIPT -> {
                    String callId = LogFormat.getString(f);
                    String bizId = LogFormat.getNullableString(f);
                    long expiresAt = f.getLong();
                    f.getLong(); // createdAt: the call id orders the recent calls
                    LogFormat.skipBytes(f);
                    int tag = receiptTag(callId);
                    pointReceipt(tag, receiptSlot(callId, tag, 0), bizId, position);
                    noteRecent(callId);
                    maxExpiry = Math.max(maxExpiry, expiresAt);
                }
                case RECORD_DELETED -> {
                    String id = LogFormat.getString(f);
                    int slot = recordSlot(id, recordTag(id));
                    if (slot >= 0) {
                        dropRecord(slot);
                    }
                }
                case DEAD_LETTER -> {
                    String id = LogFormat.getString(f);
                    String sortKey = LogFormat.getString(f);
                    LogFormat.skipBytes(f);
                    pointDeadLetter(id, sortKey, position);
                    maxExpiry = Long.MAX_VALUE;
                }
                case DEAD_LETTER_DELETED -> dropDeadLetter(LogFormat.getString(f));
                case TASK -> {
                    String key = LogFormat.getString(f);
                    long count = f.getLong();
                    long expiresAt = f.getLong();
                    pointTask(key, count, expiresAt, position);
                    maxExpiry = Math.max(maxExpiry, expiresAt);
                }
                default -> throw new IllegalStateException("unknown log part kind " + k);
            }
        }
        SegmentLog.Seg seg = log.segmentOf(position);
        seg.parts += parts;
        seg.maxExpiry = Math.max(seg.maxExpiry, maxExpiry);
        return maxExpiry;
    }

    /** Live parts over all segments, estimated in bytes from each segment's share of live parts. */
    long liveBytesEstimate() throws IOException {
        long n = 0;
        for (SegmentLog.Seg s : log.segments()) {
            if (s.parts > 0) {
                n += s.file.size() * Math.max(0, s.liveParts) / s.parts;
            }
        }
        return n;
    }
}
