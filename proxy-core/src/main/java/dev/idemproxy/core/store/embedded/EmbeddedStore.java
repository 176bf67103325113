package dev.idemproxy.core.store.embedded;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.secret.PrivateFiles;
import dev.idemproxy.core.store.StorePolicy.EmbeddedSync;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.util.Mistakes;
import dev.idemproxy.core.util.Ticker;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded backend: an append-only log of segments in the data directory ({@link SegmentLog},
 * format in {@link LogFormat}) with its indexes in memory ({@link LogState}), every operation of
 * its four stores ({@link EmbeddedRecords}, {@link EmbeddedReceipts}, {@link EmbeddedDeadLetters},
 * {@link EmbeddedTaskCounters}) run on one executor in group commits ({@link Batcher}), the oldest
 * segment compacted when due ({@link LogCompaction}), the log forced to disk as
 * {@code store.embedded.sync} says. At start the log is read back (a torn last frame is cut off)
 * and a store file of an earlier version is moved into it once ({@link MvStoreImport}). One
 * process per directory: a lock file ({@value #LOCK_NAME}); a second open fails with "data
 * directory X is in use by another process". Thread-safe.
 */
public final class EmbeddedStore {
    static final String LOCK_NAME = "idemproxy.lock";
    /** A segment's size before the log moves on to the next. */
    static final long SEGMENT_BYTES = 8L * 1024 * 1024;
    /** How often the {@code interval} sync forces the log. */
    static final long SYNC_MILLIS = 1000;
    private static final Logger log = LoggerFactory.getLogger(EmbeddedStore.class);

    private final FileChannel lockFile;
    private final FileLock lock;
    private final SegmentLog segments;
    private final StoreExecutor executor;
    private final StoreExecutor syncExecutor;
    private final Batcher batcher;
    private final LogState state;
    private final LogCompaction compaction;
    private final Stores stores;
    private volatile boolean closed;

    /**
     * The seams a simulator replaces: where the store's work runs, where the {@code interval} sync
     * runs (the same executor will do), the files of the log, and the mistakes planted on purpose
     * ({@link Mistakes#NONE} but in the simulation). {@link #real} is what the proxy uses.
     */
    public record Seams(StoreExecutor executor, StoreExecutor syncExecutor, LogFiles files, Mistakes mistakes) {
        public Seams {
            requireNonNull(executor, "executor");
            requireNonNull(syncExecutor, "syncExecutor");
            requireNonNull(mistakes, "mistakes");
        }

        /** A store thread, a sync thread and the directory's files. */
        public static Seams real() {
            return new Seams(StoreExecutor.thread("idemproxy-embedded-store"), StoreExecutor.thread("idemproxy-embedded-sync"),
                    null, Mistakes.NONE);
        }
    }

    private EmbeddedStore(Path directory, FileChannel lockFile, FileLock lock, Clock clock, Ticker ticker, EmbeddedSync sync,
            long segmentBytes, Seams seams) throws IOException {
        this.lockFile = lockFile;
        this.lock = lock;
        LogFiles files = seams.files() != null ? seams.files() : new DirectoryLogFiles(directory);
        this.segments = new SegmentLog(files, segmentBytes, sync);
        this.state = new LogState(segments);
        LogWrites writes = new LogWrites(segments);
        boolean moving = directory != null && MvStoreImport.pending(directory);
        if (moving) {
            for (long id : files.list()) {
                files.delete(id);  // a move cut short by a crash: start it again
            }
        }
        recover(files);
        if (moving) {
            MvStoreImport.run(directory, segments, state, writes);
        }
        this.executor = seams.executor();
        this.syncExecutor = seams.syncExecutor();
        this.batcher = new Batcher(executor, segments, seams.mistakes());
        EmbeddedReceipts receipts = new EmbeddedReceipts(batcher, state, writes, clock);
        this.stores = new Stores(new EmbeddedRecords(this, batcher, state, writes, clock), receipts,
                new EmbeddedDeadLetters(batcher, state, writes), new EmbeddedTaskCounters(batcher, state, writes, clock));
        this.compaction = new LogCompaction(segments, state, writes, batcher, executor, clock, ticker, sync != EmbeddedSync.NONE);
        compaction.start();
        if (sync == EmbeddedSync.INTERVAL) {
            syncExecutor.schedule(this::syncEverySecond, SYNC_MILLIS);
        }
    }

    /**
     * Opens (creating if needed) the store in {@code directory}. Blocking: call it at start-up, not
     * on an event loop.
     *
     * @param clock  the time source for leases and expiry
     * @param ticker the time source of the compaction's slices
     * @param sync   when the log is forced to disk
     * @throws StoreUnavailableException when the directory is in use by another process or unusable
     */
    public static Stores open(Path directory, Clock clock, Ticker ticker, EmbeddedSync sync) {
        return open(directory, clock, ticker, sync, SEGMENT_BYTES, Seams.real()).stores;
    }

    /** As {@link #open(Path, Clock, Ticker, EmbeddedSync)} with the {@code interval} sync, on the JVM's ticker. */
    public static Stores open(Path directory, Clock clock) {
        return open(directory, clock, Ticker.system(), EmbeddedSync.INTERVAL);
    }

    /** The backend itself, with its seams and segment size given; for tests, benchmarks and the simulator. */
    public static EmbeddedStore open(Path directory, Clock clock, Ticker ticker, EmbeddedSync sync, long segmentBytes,
            Seams seams) {
        requireNonNull(directory, "directory");
        requireNonNull(clock, "clock");
        requireNonNull(ticker, "ticker");
        requireNonNull(sync, "sync");
        FileChannel lockFile = null;
        try {
            List<String> unchanged = PrivateFiles.secureDirectory(directory);
            if (!unchanged.isEmpty()) {
                log.warn("embedded store: cannot take group and other permissions off {} (not this process's to change?);"
                        + " the files the store writes are owner-only anyway", String.join(", ", unchanged));
            }
            Path lockPath = directory.resolve(LOCK_NAME);
            PrivateFiles.privateFile(lockPath);
            lockFile = FileChannel.open(lockPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = lockFile.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                throw new StoreUnavailableException("data directory " + directory + " is in use by another process");
            }
            try {
                return new EmbeddedStore(directory, lockFile, lock, clock, ticker, sync, segmentBytes, seams);
            } catch (IOException | RuntimeException e) {
                lock.release();
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            closeQuietly(lockFile);
            if (e instanceof StoreUnavailableException u) {
                throw u;
            }
            throw new StoreUnavailableException("cannot open embedded store " + directory + ": " + e, e);
        }
    }

    /** Reads every segment back into the indexes, cutting a torn tail off; starts the first segment of a new log. */
    private void recover(LogFiles files) throws IOException {
        List<Long> ids = files.list();
        for (int i = 0; i < ids.size(); i++) {
            long id = ids.get(i);
            LogFiles.Segment file = files.open(id);
            if (file.size() < LogFormat.HEADER_BYTES) {  // a segment whose header never made it: nothing in it
                file.close();
                files.delete(id);
                continue;
            }
            java.nio.ByteBuffer header = java.nio.ByteBuffer.allocate(LogFormat.HEADER_BYTES);
            file.read(0, header);
            LogFormat.checkSegmentHeader(header, id);
            SegmentLog.Seg seg = segments.adopt(id, file);
            SegmentScanner scan = new SegmentScanner(file, LogFormat.HEADER_BYTES);
            for (java.nio.ByteBuffer f; (f = scan.next()) != null; ) {
                state.replay(f, SegmentLog.position(seg, scan.frameOffset()));
            }
            if (scan.end() < file.size()) {
                if (scan.torn()) {
                    log.warn("embedded store: segment {} ends in a torn write at byte {} of {}; cut there{}",
                            DirectoryLogFiles.name(id), scan.end(), file.size(),
                            i == ids.size() - 1 ? " (the last write before a crash)" : " (not the last segment: data may be lost)");
                }
                file.truncate(scan.end());
            } else if (file.size() % 8 != 0) {  // the last frame kept, its padding not: pad it, or the next frame's position is off
                file.append(java.nio.ByteBuffer.allocate(LogFormat.padded((int) file.size()) - (int) file.size()));
            }
        }
        if (segments.active() == null || segments.active().file.size() >= segments.segmentBytes()) {
            segments.startSegment();
        }
    }

    private void syncEverySecond() {
        if (closed || batcher.failed()) {
            return;
        }
        try {
            segments.forceActive();
        } catch (IOException e) {
            log.warn("embedded store: sync failed: {}", e.toString());
        }
        syncExecutor.schedule(this::syncEverySecond, SYNC_MILLIS);
    }

    /** The backend of {@code stores}, which {@link #open} made; for tests and benchmarks that look inside it. */
    static EmbeddedStore of(Stores stores) {
        return ((EmbeddedRecords) stores.records()).backend();
    }

    /** This backend as its four stores. */
    public Stores stores() {
        return stores;
    }

    boolean isAvailable() {
        return !closed && !batcher.failed() && !executor.isShutdown();
    }

    /** A simulated crash: the lock let go, nothing written any more (the executors never run again). */
    void abandon() {
        closed = true;
        unlock();
    }

    /** Waits for queued operations, then writes, forces and closes the log. Blocking. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        executor.shutdown();
        syncExecutor.shutdown();
        try {
            if (!executor.awaitTermination(10_000)) {
                log.warn("embedded store: operations still queued after 10s; closing anyway");
            }
            syncExecutor.awaitTermination(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            segments.close();
        } catch (IOException e) {
            log.warn("embedded store: closing the log failed: {}", e.toString());
        }
        unlock();
    }

    private void unlock() {
        try {
            lock.release();
        } catch (IOException e) {
            // closing the channel releases it too
        }
        closeQuietly(lockFile);
    }

    /** Compacts the oldest segment now, whatever is due; completes when done. For tests. */
    java.util.concurrent.CompletionStage<Void> compactOldest() {
        return batcher.submit(() -> {
            compaction.compactOldestNow();
            return null;
        });
    }

    /** Runs a compaction turn now, as the one every second; for tests. */
    java.util.concurrent.CompletionStage<Boolean> compactionDue() {
        return batcher.submit(compaction::due);
    }

    /** Bytes written to the log since it was opened. */
    long writtenBytes() {
        return segments.written();
    }

    LogState state() {
        return state;
    }

    SegmentLog log() {
        return segments;
    }

    private static void closeQuietly(FileChannel c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException e) {
                // nothing to do
            }
        }
    }
}
