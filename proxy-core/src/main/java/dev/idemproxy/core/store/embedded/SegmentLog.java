package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.store.StorePolicy.EmbeddedSync;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The embedded store's log: segments of at most {@code segmentBytes} appended in order, frames
 * ({@link LogFormat}) gathered in a buffer while the executor runs a batch of operations and
 * written to the active segment with one write at its end ({@link #flush}), forced to disk as
 * {@link EmbeddedSync} says. A frame's position is (the segment's id modulo
 * {@value #RING}, its offset / 8) in {@value LongIndex#POS_BITS} bits, which the index keeps.
 * Executor only, but for {@link #forceActive}, which the interval sync calls from its thread.
 */
final class SegmentLog {
    static final int RING = 1 << 14;
    static final int OFFSET_BITS = 22;
    /** The largest segment (and frame) a position can address. */
    static final long MAX_SEGMENT_BYTES = (1L << OFFSET_BITS) * 8;

    private final LogFiles files;
    private final long segmentBytes;
    private final EmbeddedSync sync;
    /** Live segments, oldest first; the last is the active one. */
    private final Deque<Seg> segments = new ArrayDeque<>();
    private final Seg[] byRing = new Seg[RING];
    private volatile Seg active;
    private ByteBuffer pending = ByteBuffer.allocate(64 * 1024);
    private static final int FIRST_READ = 2048;
    private ByteBuffer readBuffer = ByteBuffer.allocate(16 * 1024);
    /** Bytes written to the segments since the log was opened. */
    private long written;

    /** One segment: its file and what the compaction needs to know of it. */
    static final class Seg {
        final long id;
        final LogFiles.Segment file;
        /** Parts written into it / parts of it that an index or map still points at. */
        long parts;
        long liveParts;
        /** The latest expiry of any part in it (Long.MAX_VALUE: a part that never expires). */
        long maxExpiry;

        Seg(long id, LogFiles.Segment file) {
            this.id = id;
            this.file = file;
        }

        int ring() {
            return (int) (id & (RING - 1));
        }
    }

    SegmentLog(LogFiles files, long segmentBytes, EmbeddedSync sync) {
        if (segmentBytes < 4096 || segmentBytes > MAX_SEGMENT_BYTES) {
            throw new IllegalArgumentException("segmentBytes " + segmentBytes);
        }
        this.files = files;
        this.segmentBytes = segmentBytes;
        this.sync = sync;
    }

    static long position(Seg seg, long offset) {
        return ((long) seg.ring() << OFFSET_BITS) | (offset >>> 3);
    }

    static int ringOf(long position) {
        return (int) (position >>> OFFSET_BITS);
    }

    static long offsetOf(long position) {
        return (position & ((1L << OFFSET_BITS) - 1)) << 3;
    }

    /** The segment a position is in, or null when that segment is gone. */
    Seg segmentOf(long position) {
        return byRing[ringOf(position)];
    }

    Deque<Seg> segments() {
        return segments;
    }

    Seg active() {
        return active;
    }

    long written() {
        return written;
    }

    /** Adds a segment found on disk (recovery, oldest first). */
    Seg adopt(long id, LogFiles.Segment file) {
        Seg s = new Seg(id, file);
        if (byRing[s.ring()] != null) {
            throw new IllegalStateException("more than " + RING + " log segments");
        }
        byRing[s.ring()] = s;
        segments.addLast(s);
        active = s;
        return s;
    }

    /** Starts a new active segment after the last one. */
    void startSegment() throws IOException {
        flush();
        Seg last = active;
        long id = last == null ? 1 : last.id + 1;
        if (last != null && sync != EmbeddedSync.NONE) {
            last.file.force();
        }
        LogFiles.Segment file = files.open(id);
        ByteBuffer header = ByteBuffer.allocate(LogFormat.HEADER_BYTES);
        LogFormat.writeSegmentHeader(header);
        header.flip();
        file.append(header);
        adopt(id, file);
        if (sync != EmbeddedSync.NONE) {
            file.force();
            files.syncDirectory();
        }
    }

    /**
     * Begins a frame of at most {@code maxPayload} bytes; returns the buffer to write its parts
     * into (then {@link #endFrame}). Starts a new segment first when the frame would not fit.
     */
    ByteBuffer beginFrame(int maxPayload) throws IOException {
        long need = LogFormat.FRAME_HEADER_BYTES + (long) maxPayload + 8;
        if (need > MAX_SEGMENT_BYTES - LogFormat.HEADER_BYTES) {
            throw new IllegalArgumentException("a value of " + maxPayload + " bytes is larger than the embedded store takes");
        }
        if (active == null || (active.file.size() + pending.position() + need > segmentBytes
                && active.file.size() + pending.position() > LogFormat.HEADER_BYTES)) {
            startSegment();
        }
        if (pending.remaining() < need) {
            ByteBuffer bigger = ByteBuffer.allocate((int) Math.max(pending.capacity() * 2L, pending.position() + need));
            pending.flip();
            bigger.put(pending);
            pending = bigger;
        }
        frameStart = pending.position();
        frameOpen = true;
        pending.position(frameStart + LogFormat.FRAME_HEADER_BYTES);
        return pending;
    }

    private int frameStart;
    private boolean frameOpen;
    private final java.util.zip.CRC32C crc = new java.util.zip.CRC32C();

    /** Drops a frame begun and not ended (its operation failed while writing it). */
    void abortFrame() {
        if (frameOpen) {
            pending.position(frameStart);
            frameOpen = false;
        }
    }

    /** Ends the frame begun last; returns its position, counted as one part more of the active segment per part in it. */
    long endFrame(int parts, long maxExpiry) {
        frameOpen = false;
        int end = pending.position();
        int length = end - frameStart - LogFormat.FRAME_HEADER_BYTES;
        pending.putInt(frameStart, length);
        pending.putInt(frameStart + 4, LogFormat.crc(crc, pending, frameStart + LogFormat.FRAME_HEADER_BYTES, end));
        int padded = LogFormat.padded(end);
        while (pending.position() < padded) {
            pending.put((byte) 0);
        }
        Seg seg = active;
        seg.parts += parts;
        seg.maxExpiry = Math.max(seg.maxExpiry, maxExpiry);
        return position(seg, seg.file.size() + frameStart);
    }

    /** Whether frames wait to be written. */
    boolean hasPending() {
        return pending.position() > 0;
    }

    /** Writes the frames gathered so far to the active segment; forces it when the sync is {@code always}. */
    void flush() throws IOException {
        if (pending.position() == 0) {
            return;
        }
        pending.flip();
        int n = pending.remaining();
        active.file.append(pending);
        written += n;
        pending.clear();
        if (sync == EmbeddedSync.ALWAYS) {
            active.file.force();
        }
    }

    /** Forces the active segment to disk (the interval sync's work; any thread). */
    void forceActive() throws IOException {
        Seg s = active;
        if (s != null) {
            s.file.force();
        }
    }

    /**
     * The payload of the frame at {@code position}, in a buffer positioned at it and limited to its
     * end: a view of the pending frames, or read from the segment into a buffer reused by the next
     * read. Null when its segment is gone.
     */
    ByteBuffer read(long position) throws IOException {
        Seg seg = byRing[ringOf(position)];
        if (seg == null) {
            return null;
        }
        long offset = offsetOf(position);
        long onDisk = seg.file.size();
        if (seg == active && offset >= onDisk) {
            int at = (int) (offset - onDisk);
            int length = pending.getInt(at);
            ByteBuffer view = pending.duplicate();
            view.limit(at + LogFormat.FRAME_HEADER_BYTES + length).position(at + LogFormat.FRAME_HEADER_BYTES);
            return view.slice();
        }
        readBuffer.clear().limit(Math.min(readBuffer.capacity(), FIRST_READ));
        int got = seg.file.read(offset, readBuffer);
        if (got < LogFormat.FRAME_HEADER_BYTES) {
            throw new IllegalStateException("short frame at " + offset + " of segment " + seg.id);
        }
        int length = readBuffer.getInt(0);
        int total = LogFormat.FRAME_HEADER_BYTES + length;
        if (length < 0 || offset + total > onDisk) {
            throw new IllegalStateException("bad frame length " + length + " at " + offset + " of segment " + seg.id);
        }
        if (total > got) {
            if (total > readBuffer.capacity()) {
                readBuffer = ByteBuffer.allocate(total);
            }
            readBuffer.clear().limit(total);
            seg.file.read(offset, readBuffer);
        }
        ByteBuffer frame = readBuffer;
        if (readBuffer.capacity() > 1024 * 1024) {
            readBuffer = ByteBuffer.allocate(16 * 1024);  // keep no large buffer for good
        }
        frame.limit(total).position(LogFormat.FRAME_HEADER_BYTES);
        return frame.slice();
    }

    /** Removes the oldest segment (its frames copied on or dead): closes and deletes its file. */
    void dropOldest() throws IOException {
        Seg s = segments.pollFirst();
        byRing[s.ring()] = null;
        s.file.close();
        files.delete(s.id);
        if (sync != EmbeddedSync.NONE) {
            files.syncDirectory();
        }
    }

    /** Bytes in all segments (on disk and pending). */
    long bytes() throws IOException {
        long n = pending.position();
        for (Seg s : segments) {
            n += s.file.size();
        }
        return n;
    }

    long segmentBytes() {
        return segmentBytes;
    }

    /** Writes what is pending, forces the active segment, and closes every segment. */
    void close() throws IOException {
        try {
            flush();
            if (active != null) {
                active.file.force();
            }
        } finally {
            for (Seg s : segments) {
                s.file.close();
            }
            files.close();
        }
    }
}
