package dev.idemproxy.core.store.embedded;

import org.h2.mvstore.MVStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded store's compaction, paced: once a second, on the store thread, the live pages of
 * the sparsest chunks are written again (into the next commit), so that their chunks hold nothing
 * live and their space is reused. Each turn rewrites at most a share of what the store's commits
 * wrote since the last turn ({@value #SHARE_PERCENT}%), and at least {@value #FLOOR_BYTES} bytes,
 * and none while the chunks are at least {@value #TARGET_FILL_RATE}% live.
 *
 * <p>MVStore's own compaction (its background thread's housekeeping) is off
 * ({@link EmbeddedFile}): it rewrote and moved up to tens of MB every third of a second as soon as
 * the file went idle, so after a minute of protected calls the JVM stayed busy for 13–14 s after
 * the load had stopped (up to 11 µs of CPU per call, done later). Paced by what was written, the
 * compaction's work falls inside the load that caused it, and an idle store does at most a
 * floor's worth a second, until its chunks are dense enough.
 *
 * <p>Why compaction at all: a chunk's space is reused only once nothing in it is live. A chunk
 * written under load holds record pages (soon rewritten by later commits) beside receipt pages,
 * whose keys grow with time and which stay unchanged until the purge deletes them a {@code ttl}
 * later; without compaction such chunks would stay, mostly dead, for that long.
 * Store thread only.
 */
final class EmbeddedCompaction {
    /** Below this share of live bytes in the chunks, a turn rewrites some. */
    static final int TARGET_FILL_RATE = 50;
    /** A turn rewrites at most this share of the bytes written since the last turn... */
    static final int SHARE_PERCENT = 25;
    /** ...and at least this many (the pace of an idle store's compaction). */
    static final int FLOOR_BYTES = 256 * 1024;
    /** A turn a second. */
    static final long EVERY_MILLIS = 1000;
    private static final Logger log = LoggerFactory.getLogger(EmbeddedStore.class);

    private final EmbeddedFile file;
    private final StoreThread thread;
    /** Bytes written to the file when the last turn ran (set before the first turn is scheduled). */
    private long lastWritten;

    EmbeddedCompaction(EmbeddedFile file, StoreThread thread) {
        this.file = file;
        this.thread = thread;
    }

    void start() {
        lastWritten = file.writtenBytes();
        thread.every(this::turn, EVERY_MILLIS, EVERY_MILLIS);
    }

    /**
     * The most a turn may rewrite after {@code writtenSince} bytes were written since the last:
     * {@value #SHARE_PERCENT}% of them, at least {@value #FLOOR_BYTES}, at most what an int holds.
     */
    static int budget(long writtenSince) {
        long share = Math.max(0, writtenSince) / 100 * SHARE_PERCENT;
        return (int) Math.min(Integer.MAX_VALUE, Math.max(FLOOR_BYTES, share));
    }

    /**
     * One turn: rewrites up to the budget when the chunks are sparse, and commits it; returns the
     * budget (0 when the file is closed or failed). Store thread only.
     */
    int turn() {
        if (file.failed() || file.isClosed()) {
            return 0;
        }
        long written = file.writtenBytes();
        int budget = budget(written - lastWritten);
        lastWritten = written;
        try {
            if (file.compact(TARGET_FILL_RATE, budget)) {
                file.commit();
            }
        } catch (MVStoreException | IllegalStateException e) {
            file.noteFailure();
            log.warn("embedded store: compaction failed: {}", e.toString());
        }
        return budget;
    }
}
