package dev.idemproxy.core.store.embedded;

import static dev.idemproxy.core.util.Checks.positive;
import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.Stores;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.h2.mvstore.MVStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded backend: H2 MVStore in one file under the data directory ({@link EmbeddedFile}),
 * every operation of its four stores ({@link EmbeddedRecords}, {@link EmbeddedReceipts},
 * {@link EmbeddedDeadLetters}, {@link EmbeddedTaskCounters}) run on one store thread with group
 * commit ({@link StoreThread}), expired entries swept from the file by {@link EmbeddedPurge}, its
 * sparse chunks compacted at a pace by {@link EmbeddedCompaction}.
 *
 * <p>A protected call costs the store two reads and four writes (its record and receipt, claimed
 * and ended); a claim, an end and a dead letter are committed before they are acknowledged (see
 * {@link EmbeddedRecords} for what survives a crash). MVStore locks the file: a second process
 * (or a second open in this one) fails with "data directory X is in use by another process".
 * Thread-safe.
 */
public final class EmbeddedStore {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedStore.class);

    private final EmbeddedFile file;
    private final StoreThread thread;
    private final EmbeddedPurge purge;
    private final EmbeddedCompaction compaction;
    private final Stores stores;

    private EmbeddedStore(EmbeddedFile file, Clock clock, Ticker ticker, Duration purgeInterval) {
        this.file = file;
        this.thread = new StoreThread(file, ticker);
        EmbeddedReceipts receipts = new EmbeddedReceipts(thread, file.receipts, file.receiptsByBiz, clock);
        EmbeddedTaskCounters taskCounters = new EmbeddedTaskCounters(thread, file.tasks, clock);
        this.stores = new Stores(new EmbeddedRecords(this, thread, file.records, receipts, clock), receipts,
                new EmbeddedDeadLetters(thread, file.deadLetters, file.deadLetterIds), taskCounters);
        this.purge = new EmbeddedPurge(file, thread, receipts, taskCounters, clock, ticker);
        purge.start(purgeInterval);
        this.compaction = new EmbeddedCompaction(file, thread);
        compaction.start();
    }

    /**
     * Opens (creating if needed) the store in {@code directory}. Blocking: call it at start-up, not
     * on an event loop.
     *
     * @param clock         the time source for leases and expiry
     * @param ticker        the time source of the store thread's pacing (group commit, purge slices)
     * @param purgeInterval how often expired entries are deleted from the file
     * @throws StoreUnavailableException when the directory is in use by another process or unusable
     */
    public static Stores open(Path directory, Clock clock, Ticker ticker, Duration purgeInterval) {
        return backend(directory, clock, ticker, purgeInterval, EmbeddedFile.RETENTION_MILLIS).stores;
    }

    /** As {@link #open(Path, Clock, Ticker, Duration)} on the JVM's ticker. */
    public static Stores open(Path directory, Clock clock, Duration purgeInterval) {
        return open(directory, clock, Ticker.system(), purgeInterval);
    }

    /** Opens the store with a one-minute purge interval, on the JVM's ticker. */
    public static Stores open(Path directory, Clock clock) {
        return open(directory, clock, Duration.ofMinutes(1));
    }

    /**
     * As {@link #open(Path, Clock, Ticker, Duration)}, the backend itself, with another retention
     * (and sync every tenth of it); for tests and benchmarks that look inside it.
     */
    static EmbeddedStore backend(Path directory, Clock clock, Ticker ticker, Duration purgeInterval, int retentionMillis) {
        requireNonNull(directory, "directory");
        requireNonNull(clock, "clock");
        requireNonNull(ticker, "ticker");
        positive(purgeInterval, "purgeInterval");
        return new EmbeddedStore(EmbeddedFile.open(directory, retentionMillis), clock, ticker, purgeInterval);
    }

    /** The backend of {@code stores}, which {@link #open} made; for tests and benchmarks that look inside it. */
    static EmbeddedStore of(Stores stores) {
        return ((EmbeddedRecords) stores.records()).backend();
    }

    /** This backend as its four stores. */
    Stores stores() {
        return stores;
    }

    boolean isAvailable() {
        return !file.failed() && !thread.isShutdown() && !file.isClosed();
    }

    /** Waits for queued operations, then commits and closes the file. Blocking. */
    void close() {
        if (thread.isShutdown()) {
            return;
        }
        file.stopSyncing();
        thread.shutdown();
        try {
            if (!thread.awaitStopped(10)) {
                log.warn("embedded store: operations still queued after 10s; closing anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        file.close();
    }

    /** Deletes every entry that expired by now, in one go; completes with how many. */
    CompletionStage<Integer> purgeExpired() {
        return purge.sweep(Integer.MAX_VALUE, Long.MAX_VALUE);
    }

    /** One sweep in slices ({@link EmbeddedPurge#sweep}); completes with how many entries it deleted. */
    CompletionStage<Integer> sweep(int slice, long sliceNanos) {
        return purge.sweep(slice, sliceNanos);
    }

    /**
     * One turn of the compaction, on the store thread, now (besides the turn every second);
     * completes with the turn's budget. For tests.
     */
    CompletionStage<Integer> compactOnce() {
        return thread.submit(compaction::turn);
    }

    /** The file under the store, for tests. */
    EmbeddedFile file() {
        return file;
    }

    /** The MVStore, for tests and diagnostics. */
    MVStore mvStore() {
        return file.mv();
    }
}
