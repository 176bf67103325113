package dev.idemproxy.core.store.embedded;

import java.util.HashMap;
import org.h2.mvstore.SingleFileStore;

/**
 * MVStore's single-file store, except that the file is never shortened: space freed at its end is
 * reused by later chunks instead of being given back to the file system.
 *
 * <p>MVStore shortens the file inside a chunk write whenever the end of the file has become free,
 * with a sync and a truncate while it holds the lock every commit needs. After the purge has
 * freed the tail of a large file (say, at the first commit after a quiet minute), that truncate
 * released a gigabyte of blocks, and on a file system mounted with online discard it held every
 * commit, and so every protected call, for half a second: a 10 s run of protected POSTs after 75 s
 * of idleness had a p99 of 515 ms and a maximum of 631 ms, and a thread dump showed MVStore's save
 * thread in {@code truncate} while the store thread waited for its commit (measured in 2026-12; the figures are in git history, docs/benchmarks-history.md).
 * A file that keeps its largest size is what most databases do; operations.md says how to size
 * the volume for it. It also tells how many bytes were written ({@link #writtenBytes}), which
 * paces the compaction ({@link EmbeddedCompaction}).
 */
final class KeptLengthFileStore extends SingleFileStore {
    KeptLengthFileStore() {
        super(new HashMap<>(java.util.Map.of("autoCompactFillRate", 0)));  // MVStore reads it here, not from its builder
    }

    /** Bytes written to the file since it was opened. */
    long writtenBytes() {
        return writeBytes.get();
    }

    /** The fill rate below which MVStore's own housekeeping compacts (0: never); for tests. */
    int housekeepingFillRate() {
        return getAutoCompactFillRate();
    }

    @Override
    protected void shrinkStoreIfPossible(int minPercent) {
        // never: see the class comment
    }
}
