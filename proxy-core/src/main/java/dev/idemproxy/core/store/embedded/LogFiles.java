package dev.idemproxy.core.store.embedded;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The embedded store's file I/O seam: the directory of log segments and each segment's reads,
 * appends and forces, and nothing else. {@link DirectoryLogFiles} is the real one; a simulator
 * supplies its own to cut the log between any two writes (a crash) or to lose what was not
 * forced (a power loss). Used by the store's executor only ({@link StoreExecutor}), but for
 * {@link Segment#force()}, which the interval sync may call from another thread.
 */
public interface LogFiles extends Closeable {

    /** The ids of the segments in the directory, ascending. */
    List<Long> list() throws IOException;

    /** Opens segment {@code id} for reading and appending, creating it empty when absent. */
    Segment open(long id) throws IOException;

    /** Deletes segment {@code id} (closed first by the caller). */
    void delete(long id) throws IOException;

    /** Makes the directory's entries (segments created or deleted) durable. */
    void syncDirectory() throws IOException;

    /** One segment file: appended at its end, read anywhere, forced to disk. */
    interface Segment extends Closeable {

        /** Its length in bytes. */
        long size();

        /** Writes all of {@code src} at the end of the segment (one write, or as few as it takes). */
        void append(ByteBuffer src) throws IOException;

        /** Reads into {@code dst} from {@code position} until {@code dst} is full or the segment ends; the bytes read. */
        int read(long position, ByteBuffer dst) throws IOException;

        /** Forces what was appended so far to the disk. */
        void force() throws IOException;

        /** Cuts the segment to {@code size} bytes (a torn tail found at recovery). */
        void truncate(long size) throws IOException;
    }
}
