package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.secret.PrivateFiles;
import dev.idemproxy.core.store.StoreUnavailableException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.MVStoreException;
import org.h2.mvstore.type.ByteArrayDataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded store's file: {@value #FILE_NAME} under the data directory, opened and locked
 * (MVStore's lock: a second process fails with "data directory X is in use by another process"),
 * its maps, the move from the first file layout, and a thread of its own that forces the file to
 * disk every {@value #SYNC_MILLIS} ms.
 *
 * <p><b>Layout.</b> Records ({@value #RECORDS}: record id → encoded record), receipts
 * ({@value #RECEIPTS}, {@value #RECEIPTS_BY_BIZ}) and task counters ({@value #TASKS}) are typed
 * maps (string keys, byte-array or string values, written without MVStore's per-value type tag;
 * strings through {@link AsciiFastStringType}, which writes MVStore's string bytes in one copy);
 * dead letters keep their first maps ({@code dlq}, {@code dlqIds}). There is no expiry index: a
 * value carries its expiry, reads skip what expired, and the purge deletes it later.
 *
 * <p><b>File size.</b> Every commit writes a new chunk (tens of KB: the changed B-tree pages and
 * MVStore's chunk metadata), and MVStore reuses a chunk's space only once it holds no live data
 * and was written at least its {@code retentionTime} ago, so the file holds about that many
 * seconds of commits besides the live data. MVStore's default of 45 s assumes the OS writes data
 * back within that time; instead the sync thread forces the file to disk every
 * {@value #SYNC_MILLIS} ms and the retention is {@value #RETENTION_MILLIS} ms, which keeps that
 * premise with a margin and keeps the file several times smaller under a steady load. MVStore's
 * own compaction is off: {@link EmbeddedCompaction} rewrites sparse chunks at a pace. Pages keep
 * MVStore's default of 48 keys: 16 made commits smaller but every read deeper, and a replay from
 * this store cost 40 % more CPU (measured in 2026-12; the figures are in git history, docs/benchmarks-history.md).
 *
 * <p>The maps are used on the store thread only ({@link StoreThread}); {@link #failed()} and the
 * sync run on other threads. Thread-safe as used.
 */
final class EmbeddedFile {
    static final String FILE_NAME = "idemproxy.mv.db";
    /**
     * The maps of the second file layout: typed (keys and values written without a type tag) and
     * without an expiry index, which cost every write two more B-tree updates; the purge sweeps
     * the maps instead. See {@link #migrateFirstLayout}.
     */
    static final String RECORDS = "records.2";
    static final String RECEIPTS = "receipts.2";
    static final String RECEIPTS_BY_BIZ = "receiptsByBiz.2";
    static final String TASKS = "tasks.2";
    /** How long MVStore keeps a chunk it no longer needs, after writing it, before reusing its space. */
    static final int RETENTION_MILLIS = 10_000;
    /** How often the sync thread forces the file to disk: well within {@link #RETENTION_MILLIS}. */
    static final int SYNC_MILLIS = RETENTION_MILLIS / 10;
    /**
     * MVStore's write buffer, in KiB: changes held in memory beyond this are written out. Its
     * default grows with the heap (19 MiB from a 300 MiB heap up); under a steady stream of new
     * records those pages outlived young collections and filled the old generation.
     */
    static final int WRITE_BUFFER_KIB = 1024;
    /** MVStore's cache of pages, in MiB (its default, 16, is a large part of a sidecar's heap). */
    static final int PAGE_CACHE_MIB = 4;
    private static final Logger log = LoggerFactory.getLogger(EmbeddedStore.class);

    private final MVStore mv;
    private final KeptLengthFileStore fileStore;
    final MVMap<String, byte[]> records;
    final MVMap<String, byte[]> receipts;
    final MVMap<String, String> receiptsByBiz;
    final MVMap<String, byte[]> tasks;
    final MVMap<String, byte[]> deadLetters;
    final MVMap<String, String> deadLetterIds;
    private volatile boolean failed;
    /** Forces the file to disk every {@link #SYNC_MILLIS}; its own thread, so an fsync never holds up the store thread. */
    private final ScheduledExecutorService syncThread;

    private EmbeddedFile(MVStore mv, KeptLengthFileStore fileStore, int syncMillis) {
        this.mv = mv;
        this.fileStore = fileStore;
        this.records = mv.openMap(RECORDS, bytesBy());
        this.receipts = mv.openMap(RECEIPTS, bytesBy());
        this.receiptsByBiz = mv.openMap(RECEIPTS_BY_BIZ, stringsBy());
        this.tasks = mv.openMap(TASKS, bytesBy());
        migrateFirstLayout(mv, records, receipts, receiptsByBiz, tasks);
        this.deadLetters = mv.openMap("dlq");
        this.deadLetterIds = mv.openMap("dlqIds");
        this.syncThread = StoreThread.daemonThread("idemproxy-embedded-sync");
        syncThread.scheduleWithFixedDelay(this::syncQuietly, syncMillis, syncMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * Opens (creating if needed) the file in {@code directory}, keeping chunks it no longer needs
     * {@code retentionMillis} and syncing every tenth of that. Blocking.
     *
     * @throws StoreUnavailableException when the directory is in use by another process or unusable
     */
    static EmbeddedFile open(Path directory, int retentionMillis) {
        Path file = directory.resolve(FILE_NAME);
        makePrivate(directory, file);
        EmbeddedFile[] self = {null};
        MVStore mv;
        KeptLengthFileStore fileStore = new KeptLengthFileStore();
        try {
            fileStore.open(file.toString(), false, null);  // locks the file, or throws
            try {
                mv = new MVStore.Builder()
                        .adoptFileStore(fileStore)  // the MVStore closes it
                        // no housekeeping on MVStore's background thread: EmbeddedCompaction paces it
                        .autoCompactFillRate(0)
                        .autoCommitBufferSize(WRITE_BUFFER_KIB)
                        .cacheSize(PAGE_CACHE_MIB)
                        .backgroundExceptionHandler((t, e) -> {
                            if (self[0] != null) {  // during open, the failure is thrown to the caller instead
                                log.error("embedded store background write failed: {}", e.toString(), e);
                                self[0].failed = true;
                            }
                        })
                        .open();
            } catch (RuntimeException e) {
                fileStore.close();
                throw e;
            }
        } catch (MVStoreException e) {
            if (e.getErrorCode() == DataUtils.ERROR_FILE_LOCKED) {
                throw new StoreUnavailableException("data directory " + directory + " is in use by another process", e);
            }
            throw new StoreUnavailableException("cannot open embedded store " + file + ": " + e.getMessage(), e);
        }
        mv.setRetentionTime(retentionMillis);
        self[0] = new EmbeddedFile(mv, fileStore, Math.max(1, retentionMillis / 10));
        return self[0];
    }

    /** Commits what the store thread wrote since the last commit. Store thread only. */
    void commit() {
        mv.commit();
    }

    /** Bytes written to the file since it was opened (commits and compaction). */
    long writtenBytes() {
        return fileStore.writtenBytes();
    }

    /**
     * When less than {@code targetFillRate}% of the chunks' bytes are live, rewrites the live pages
     * of the sparsest chunks, about {@code budget} bytes of them, for the next commit; true when
     * it rewrote any. Store thread only.
     */
    boolean compact(int targetFillRate, int budget) {
        return mv.compact(targetFillRate, budget);
    }

    /** After an operation or a commit failed: whether the file is now unusable (closed, or MVStore panicked). */
    void noteFailure() {
        failed = mv.isClosed() || mv.getPanicException() != null;
    }

    /** Whether the file failed for good (a background write, or an operation that closed it). */
    boolean failed() {
        return failed;
    }

    boolean isClosed() {
        return mv.isClosed();
    }

    /** The file store under the MVStore, for tests. */
    KeptLengthFileStore fileStore() {
        return fileStore;
    }

    /** The MVStore, for tests and diagnostics. */
    MVStore mv() {
        return mv;
    }

    /** Stops the sync thread's next runs (one under way finishes). */
    void stopSyncing() {
        syncThread.shutdown();
    }

    /**
     * Waits up to 10 s for a sync under way ({@link #stopSyncing} first), then closes the file,
     * committing what is left. Blocking.
     */
    void close() {
        try {
            syncThread.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        mv.close();
    }

    /**
     * Files written before the typed maps (idemproxy 0.1.0 up to 2026-12-01) kept records,
     * receipts, their index and task counters in untyped maps beside an expiry index: their
     * entries move to the typed maps (the values' bytes are the same), the old maps go, and the
     * move is committed before the store answers anything.
     */
    private static void migrateFirstLayout(MVStore mv, MVMap<String, byte[]> records, MVMap<String, byte[]> receipts,
            MVMap<String, String> receiptsByBiz, MVMap<String, byte[]> tasks) {
        long moved = moveAll(mv, "records", records) + moveAll(mv, "receipts", receipts)
                + moveAll(mv, "receiptsByBiz", receiptsByBiz) + moveAll(mv, "tasks", tasks);
        boolean hadIndex = mv.hasMap("expiry");
        if (hadIndex) {
            mv.removeMap(mv.openMap("expiry"));
        }
        if (moved > 0 || hadIndex) {
            mv.commit();
            log.info("embedded store: moved {} entries of the first file layout to the typed maps", moved);
        }
    }

    private static <V> long moveAll(MVStore mv, String oldName, MVMap<String, V> to) {
        if (!mv.hasMap(oldName)) {
            return 0;
        }
        MVMap<String, V> old = mv.openMap(oldName);
        long n = 0;
        for (Map.Entry<String, V> e : old.entrySet()) {
            to.putIfAbsent(e.getKey(), e.getValue());
            n++;
        }
        mv.removeMap(old);
        return n;
    }

    private static MVMap.Builder<String, byte[]> bytesBy() {
        return new MVMap.Builder<String, byte[]>().keyType(AsciiFastStringType.INSTANCE).valueType(ByteArrayDataType.INSTANCE);
    }

    private static MVMap.Builder<String, String> stringsBy() {
        return new MVMap.Builder<String, String>().keyType(AsciiFastStringType.INSTANCE).valueType(AsciiFastStringType.INSTANCE);
    }

    /**
     * Forces what was written so far to disk, so that a chunk is on disk long before MVStore may
     * reuse its space ({@link #RETENTION_MILLIS}). Not needed for a process crash (the OS has
     * every write), only for an OS crash or power loss. Runs on its own thread: MVStore's sync
     * only forces the file channel, which is safe beside the store thread's writes.
     */
    private void syncQuietly() {
        if (failed || mv.isClosed()) {
            return;
        }
        try {
            mv.sync();
        } catch (MVStoreException | IllegalStateException e) {
            log.warn("embedded store: sync failed: {}", e.toString());
        }
    }

    /**
     * The data directory and everything in it owner-only (docs/security.md): created 0700 when absent,
     * group and other bits taken off at every start, the store file created 0600 before MVStore
     * opens it. What the process may not change (a mount point owned by root) is said once, at WARN.
     */
    private static void makePrivate(Path directory, Path file) {
        java.util.List<String> unchanged = new java.util.ArrayList<>();
        try {
            unchanged.addAll(PrivateFiles.secureDirectory(directory));
            unchanged.addAll(PrivateFiles.privateFile(file));
        } catch (IOException e) {
            throw new StoreUnavailableException("cannot create data directory " + directory + ": " + e, e);
        }
        if (!unchanged.isEmpty()) {
            log.warn("embedded store: cannot take group and other permissions off {} (not this process's to change?);"
                    + " the files the store writes are owner-only anyway", String.join(", ", unchanged));
        }
    }
}
