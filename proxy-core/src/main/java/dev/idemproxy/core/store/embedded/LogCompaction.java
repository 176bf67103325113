package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.util.Ticker;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded log's compaction, always of its oldest segment: the parts of it that an index still
 * points at and that have not expired are copied to the end of the log, the others (superseded,
 * deleted, expired, and every deletion marker, which no older segment can need any more) are
 * dropped, and once the copies are written (and forced, unless the sync is {@code none}) the
 * segment is deleted. Because segments only ever go from the oldest end, a deleted record can
 * never come back from an older segment.
 *
 * <p>A turn runs every second on the store's executor and takes the oldest segment when nothing
 * in it is live any more, when everything in it has expired, or when the log holds more than
 * twice its live bytes (plus two segments); it works in slices of about {@value #SLICE_MILLIS} ms
 * between the operations' batches. Under a steady load of calls with one ttl, whole segments
 * expire and are deleted without copying anything. Executor only.
 */
final class LogCompaction {
    static final long EVERY_MILLIS = 1000;
    static final long SLICE_MILLIS = 2;
    private static final Logger log = LoggerFactory.getLogger(EmbeddedStore.class);

    private final SegmentLog segments;
    private final LogState state;
    private final LogWrites writes;
    private final Batcher batcher;
    private final StoreExecutor executor;
    private final Clock clock;
    private final Ticker ticker;
    private final boolean force;
    /** The oldest segment's scan under way, or null. */
    private SegmentScanner scan;
    private SegmentLog.Seg scanning;

    LogCompaction(SegmentLog segments, LogState state, LogWrites writes, Batcher batcher, StoreExecutor executor, Clock clock,
            Ticker ticker, boolean force) {
        this.segments = segments;
        this.state = state;
        this.writes = writes;
        this.batcher = batcher;
        this.executor = executor;
        this.clock = clock;
        this.ticker = ticker;
        this.force = force;
    }

    void start() {
        executor.schedule(this::every, EVERY_MILLIS);
    }

    private void every() {
        if (executor.isShutdown()) {
            return;
        }
        if (scan == null) {
            turn();
        }
        executor.schedule(this::every, EVERY_MILLIS);
    }

    /** Starts on the oldest segment if it is due, and runs the first slice. Executor only. */
    void turn() {
        if (batcher.failed() || scan != null || !due()) {
            return;
        }
        try {
            scanning = segments.segments().peekFirst();
            scan = new SegmentScanner(scanning.file, LogFormat.HEADER_BYTES);
        } catch (IOException e) {
            batcher.fail(e);
            return;
        }
        slice();
    }

    /** Whether the oldest segment is due for compaction (never the active one). */
    boolean due() {
        if (segments.segments().size() < 2) {
            return false;
        }
        SegmentLog.Seg head = segments.segments().peekFirst();
        if (head.liveParts <= 0 || head.maxExpiry <= clock.millis()) {
            return true;
        }
        try {
            return segments.bytes() > 2 * state.liveBytesEstimate() + 2 * segments.segmentBytes();
        } catch (IOException e) {
            return false;
        }
    }

    /** Compacts the oldest segment whole, now; for tests. Executor only. */
    void compactOldestNow() throws IOException {
        if (segments.segments().size() < 2) {
            return;
        }
        scanning = segments.segments().peekFirst();
        scan = new SegmentScanner(scanning.file, LogFormat.HEADER_BYTES);
        while (scan != null) {
            step(Long.MAX_VALUE);
        }
    }

    private void slice() {
        try {
            step(ticker.nanos() + TimeUnit.MILLISECONDS.toNanos(SLICE_MILLIS));
        } catch (IOException | RuntimeException e) {
            log.warn("embedded store: compaction failed: {}", e.toString());
            batcher.fail(e);
            scan = null;
            return;
        }
        if (scan != null) {
            try {
                executor.execute(this::slice);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                scan = null;
            }
        }
    }

    /** Copies on the live parts of frames until {@code untilNanos}; at the segment's end, drops it. */
    private void step(long untilNanos) throws IOException {
        long now = clock.millis();
        int n = 0;
        for (ByteBuffer f; (f = scan.next()) != null; ) {
            keepLive(f, SegmentLog.position(scanning, scan.frameOffset()), now);
            if (++n % 64 == 0 && ticker.nanos() - untilNanos > 0) {
                segments.flush();
                return;
            }
        }
        segments.flush();
        if (force) {
            segments.forceActive();
        }
        segments.dropOldest();
        scan = null;
        scanning = null;
    }

    /** Copies the live parts of the frame at {@code position} to a new frame and points at it. */
    private void keepLive(ByteBuffer f, long position, long now) {
        ByteBuffer keep = null;
        int kept = 0;
        long maxExpiry = 0;
        String recordId = null;
        int recordSlot = -1;
        String callId = null;
        String bizId = null;
        int receiptSlot = -1;
        String deadLetterId = null;
        String taskKey = null;
        while (f.hasRemaining()) {
            int start = f.position();
            byte k = f.get();
            boolean live = false;
            long expiresAt = 0;
            switch (k) {
                case LogFormat.RECORD -> {
                    String id = LogFormat.getString(f);
                    expiresAt = f.getLong();
                    LogFormat.skipRecord(f);
                    int slot = LogState.slotAt(state.records, LogState.recordTag(id), position);
                    if (slot >= 0 && expiresAt <= now) {
                        state.dropRecord(slot);
                        state.cache(id, null, 0, null);
                    } else if (slot >= 0) {
                        live = true;
                        recordId = id;
                        recordSlot = slot;
                    }
                }
                case LogFormat.RECEIPT -> {
                    String id = LogFormat.getString(f);
                    String b = LogFormat.getNullableString(f);
                    expiresAt = f.getLong();
                    f.getLong();  // createdAt
                    LogFormat.skipBytes(f);
                    int slot = LogState.slotAt(state.receipts, LogState.receiptTag(id), position);
                    if (slot >= 0 && expiresAt <= now) {
                        state.dropReceipt(slot, b);
                    } else if (slot >= 0) {
                        live = true;
                        callId = id;
                        bizId = b;
                        receiptSlot = slot;
                    }
                }
                case LogFormat.DEAD_LETTER -> {
                    String id = LogFormat.getString(f);
                    LogFormat.skipBytes(f);
                    LogFormat.skipBytes(f);
                    LogState.DeadLetterAt at = state.deadLetters.get(id);
                    live = at != null && at.position() == position;
                    expiresAt = Long.MAX_VALUE;
                    deadLetterId = live ? id : null;
                }
                case LogFormat.TASK -> {
                    String key = LogFormat.getString(f);
                    f.getLong();
                    expiresAt = f.getLong();
                    LogState.TaskAt at = state.tasks.get(key);
                    if (at != null && at.position() == position) {
                        if (expiresAt <= now) {
                            state.dropTask(key);
                        } else {
                            live = true;
                            taskKey = key;
                        }
                    }
                }
                default -> LogFormat.skipPart(f, k);  // deletion markers: nothing older is left to hide
            }
            if (live) {
                if (keep == null) {
                    keep = ByteBuffer.allocate(f.limit());
                }
                ByteBuffer part = f.duplicate();
                part.limit(f.position()).position(start);
                keep.put(part);
                kept++;
                maxExpiry = Math.max(maxExpiry, expiresAt);
            }
        }
        if (keep == null) {
            return;
        }
        keep.flip();
        long moved = writes.copy(keep, kept, maxExpiry);
        if (recordId != null) {
            state.pointRecord(LogState.recordTag(recordId), recordSlot, moved);
            LogState.Cached c = state.cached(recordId);
            if (c != null) {
                state.cache(recordId, c.record(), moved, c.receiptCallId());
            }
        }
        if (callId != null) {
            state.pointReceipt(LogState.receiptTag(callId), receiptSlot, bizId, moved);
        }
        if (deadLetterId != null) {
            state.pointDeadLetter(deadLetterId, state.deadLetters.get(deadLetterId).sortKey(), moved);
        }
        if (taskKey != null) {
            LogState.TaskAt t = state.tasks.get(taskKey);
            state.pointTask(taskKey, t.count(), t.expiresAt(), moved);
        }
    }
}
