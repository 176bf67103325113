package dev.idemproxy.core.store.embedded;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Reads one segment's frames in order, in chunks: recovery reads every segment this way and the
 * compaction the oldest. {@link #next} hands out each frame's payload until the segment ends or a
 * frame is torn (its length runs past the end, or its CRC does not match), where
 * {@link #end()} says where the good frames end. Not thread-safe.
 */
final class SegmentScanner {
    private static final int CHUNK = 256 * 1024;

    private final LogFiles.Segment file;
    private final long size;
    private ByteBuffer chunk = ByteBuffer.allocate(CHUNK);
    /** The file offset of chunk[0]. */
    private long chunkAt;
    /** The offset of the next frame. */
    private long offset;
    private long frameOffset;
    private boolean torn;

    SegmentScanner(LogFiles.Segment file, long from) throws IOException {
        this.file = file;
        this.size = file.size();
        this.offset = from;
        this.chunkAt = from;
        chunk.limit(0);
    }

    /** The next frame's payload (positioned at it, limited to its end), or null at the end of the good frames. */
    ByteBuffer next() throws IOException {
        if (torn || offset + LogFormat.FRAME_HEADER_BYTES > size) {
            torn |= offset < size && !zeroTail();
            return null;
        }
        if (!have(offset, LogFormat.FRAME_HEADER_BYTES)) {
            torn = true;
            return null;
        }
        int at = (int) (offset - chunkAt);
        int length = chunk.getInt(at);
        int crc = chunk.getInt(at + 4);
        long total = LogFormat.FRAME_HEADER_BYTES + (long) length;
        if (length <= 0 || offset + total > size || !have(offset, (int) total)) {
            torn = !(length == 0 && zeroTail());
            return null;
        }
        at = (int) (offset - chunkAt);
        int from = at + LogFormat.FRAME_HEADER_BYTES;
        if (LogFormat.crc(chunk, from, from + length) != crc) {
            torn = true;
            return null;
        }
        frameOffset = offset;
        offset += LogFormat.padded((int) total);
        ByteBuffer payload = chunk.duplicate();
        payload.limit(from + length).position(from);
        return payload.slice();
    }

    /** The offset in the segment of the frame {@link #next} returned last. */
    long frameOffset() {
        return frameOffset;
    }

    /** Where the good frames end: the segment's length, or where a torn frame starts. */
    long end() {
        return torn ? offset : Math.min(offset, size);
    }

    /** Whether the scan stopped at a torn frame (rather than at the end or at zeroes after the last frame). */
    boolean torn() {
        return torn;
    }

    /** Whether every byte from the scan's offset to the end is zero (space written but never framed). */
    private boolean zeroTail() throws IOException {
        for (long at = offset; at < size; at += CHUNK) {
            int n = (int) Math.min(CHUNK, size - at);
            if (!have(at, n)) {
                return false;
            }
            int from = (int) (at - chunkAt);
            for (int i = 0; i < n; i++) {
                if (chunk.get(from + i) != 0) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Makes [{@code at}, {@code at + n}) of the file available in the chunk; false when the file is shorter. */
    private boolean have(long at, int n) throws IOException {
        if (at >= chunkAt && at + n <= chunkAt + chunk.limit()) {
            return true;
        }
        if (n > chunk.capacity()) {
            chunk = ByteBuffer.allocate(n);
        } else if (chunk.capacity() > CHUNK && n <= CHUNK) {
            chunk = ByteBuffer.allocate(CHUNK);
        }
        chunk.clear();
        int got = file.read(at, chunk);
        chunk.limit(got);
        chunkAt = at;
        return got >= n;
    }
}
