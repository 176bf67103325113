package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.store.StoreCodec;
import dev.idemproxy.core.store.StoreUnavailableException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.h2.mvstore.Cursor;
import org.h2.mvstore.MVMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded store's purge: expired records, receipts, receipt index entries and task counters
 * stay in the file (reads skip them) until a sweep deletes them. A sweep runs every
 * {@code purgeInterval} on the store thread, a slice at a time between operations, and never
 * while one is under way. Store thread only, but for {@link #sweep}, which any thread may call.
 */
final class EmbeddedPurge {
    /** Entries the purge's sweep looks at in one turn of the store thread, at most. */
    private static final int SWEEP_SLICE = 4096;
    /**
     * How long one turn of the sweep may hold the store thread: a slice ends early when its
     * deletions take longer (each is a B-tree update), so that the calls queued behind it wait
     * about this long at most. A slice of 4,096 expired records took 3.3 ms in a warm JVM on an idle
     * core, 19 ms before the JIT had compiled it, more on a core the event loop shares.
     */
    static final long SWEEP_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** When the first sweep starts after the file is opened (later ones follow every {@code purgeInterval}). */
    static final long FIRST_SWEEP_MILLIS = 10_000;
    /** The sweep looks at the clock after every this many deletions or checks. */
    static final int SWEEP_CLOCK_EVERY = 64;
    /**
     * The pause between two slices of the background sweep when a slice found nothing to delete:
     * at most about 40,000 live entries a second, so that sweeping a large, long-lived file
     * (millions of 24-hour records) costs a few per cent of a core for minutes rather than a core
     * for seconds. A slice that deleted some of what it saw shortens the pause in proportion (see
     * {@link #pauseAfter}), so a sweep keeps up with entries that expire faster than that.
     */
    static final long SWEEP_PAUSE_MILLIS = 100;
    private static final Logger log = LoggerFactory.getLogger(EmbeddedStore.class);

    private final EmbeddedFile file;
    private final StoreThread thread;
    private final EmbeddedReceipts receipts;
    private final EmbeddedTaskCounters taskCounters;
    private final Clock clock;
    private final Ticker ticker;
    /** Store thread only: a purge sweep is under way. */
    private boolean sweeping;

    /**
     * @param clock  the time source of the entries' expiry
     * @param ticker the time source of a slice's budget
     */
    EmbeddedPurge(EmbeddedFile file, StoreThread thread, EmbeddedReceipts receipts, EmbeddedTaskCounters taskCounters,
            Clock clock, Ticker ticker) {
        this.file = file;
        this.thread = thread;
        this.receipts = receipts;
        this.taskCounters = taskCounters;
        this.clock = clock;
        this.ticker = ticker;
    }

    /** Sweeps every {@code purgeInterval}, the first time soon after the start. */
    void start(Duration purgeInterval) {
        long every = purgeInterval.toMillis();
        // The first sweep soon after start: a file opened after a long stop may be mostly expired.
        thread.every(this::startSweep, Math.min(every, FIRST_SWEEP_MILLIS), every);
    }

    /**
     * One sweep in slices of {@code slice} entries or {@code sliceNanos} of work, whichever ends
     * first, each slice a turn of the store thread with the operations that arrived meanwhile run
     * between them; completes with how many it deleted.
     */
    CompletionStage<Integer> sweep(int slice, long sliceNanos) {
        CompletableFuture<Integer> done = new CompletableFuture<>();
        try {
            thread.execute(() -> continueSweep(new Sweep(sliceNanos), slice, 0, done));
        } catch (RejectedExecutionException e) {
            done.completeExceptionally(new StoreUnavailableException("embedded store is closed", e));
        }
        return done;
    }

    /**
     * The purge, every {@code purgeInterval}: a sweep of every record, receipt, receipt index entry
     * and task counter in key order, {@value #SWEEP_SLICE} entries or about 2 ms a turn and up to
     * {@value #SWEEP_PAUSE_MILLIS} ms between turns (less the more of a turn had expired), so a
     * sweep of a large file never holds callers up for more than a slice and keeps up with a high
     * rate of expiry; none starts while one is under way. Store thread only.
     */
    private void startSweep() {
        if (sweeping) {
            return;
        }
        sweeping = true;
        continueSweep(new Sweep(SWEEP_SLICE_NANOS), SWEEP_SLICE, SWEEP_PAUSE_MILLIS, null);
    }

    private void continueSweep(Sweep sweep, int slice, long pauseMillis, CompletableFuture<Integer> done) {
        boolean over;
        try {
            over = sweep.slice(slice);
        } catch (RuntimeException e) {
            log.warn("embedded store: purge failed: {}", e.toString());
            finishSweep(sweep, done, e);
            return;
        }
        if (!over) {
            try {
                Runnable next = () -> continueSweep(sweep, slice, pauseMillis, done);
                long pause = pauseAfter(pauseMillis, sweep.lastSeen, sweep.lastPurged);
                if (pause > 0) {
                    thread.schedule(next, pause);
                } else {
                    thread.execute(next);
                }
                return;
            } catch (RejectedExecutionException e) {
                finishSweep(sweep, done, new StoreUnavailableException("embedded store is closed", e));  // the next start sweeps again
                return;
            }
        }
        finishSweep(sweep, done, null);
    }

    /**
     * The pause after a slice that looked at {@code seen} entries and deleted {@code purged} of
     * them: the full pause when it deleted none, none when it deleted all, in proportion between.
     * A fixed pause capped deletions at about 40,000 a second: under a steady load that writes more
     * entries than that (a record and a receipt per call, 20,000 calls a second), the sweep fell
     * behind and the file grew by gigabytes within minutes, every commit's free-space search and
     * every cache miss costing more as it grew (measured in 2026-12; the figures are in git history, docs/benchmarks-history.md). Where most of a slice has
     * expired, the slice's deletions are the work that has to be done anyway, so the sweep goes on
     * at once (after the operations queued meanwhile); where little has, it keeps the slow pace.
     */
    static long pauseAfter(long pauseMillis, int seen, int purged) {
        return seen == 0 ? pauseMillis : pauseMillis * (seen - purged) / seen;  // purged is among seen
    }

    private void finishSweep(Sweep sweep, CompletableFuture<Integer> done, Exception failure) {
        if (done == null) {
            sweeping = false;
        } else if (failure != null) {
            done.completeExceptionally(failure);
        } else {
            done.complete(sweep.purged);
        }
        if (sweep.purged > 0) {
            log.debug("embedded store: purged {} expired entries", sweep.purged);
        }
    }

    /**
     * One pass over the maps whose entries expire, in key order, resumable after any entry. An
     * entry is looked at through its value's expiry field, not decoded. Store thread only.
     */
    private final class Sweep {
        private final long sliceNanos;
        private int map;
        private String from;
        int purged;
        /** What the last slice looked at and deleted. */
        int lastSeen;
        int lastPurged;

        Sweep(long sliceNanos) {
            this.sliceNanos = sliceNanos;
        }

        /**
         * Looks at up to {@code budget} entries, stopping sooner once {@link #sliceNanos} have
         * passed (checked every {@value #SWEEP_CLOCK_EVERY} entries, so a slice always gets on);
         * true when the pass is over. Deleting behind the cursor is safe: it walks the map as it
         * was when the cursor was made (MVStore's pages are copied on write, never changed).
         */
        boolean slice(int budget) {
            long now = clock.millis();
            long start = ticker.nanos();
            int seen = 0;
            int before = purged;
            boolean outOfTime = false;
            while (map < 4 && seen < budget && !outOfTime) {
                MVMap<String, ?> m = map == 0 ? file.records : map == 1 ? file.receipts : map == 2 ? file.receiptsByBiz : file.tasks;
                Cursor<String, ?> c = m.cursor(from);
                String last = null;
                while (seen < budget && !outOfTime && c.hasNext()) {
                    last = c.next();
                    if (purge(map, last, c.getValue(), now)) {
                        purged++;
                    }
                    seen++;
                    outOfTime = seen % SWEEP_CLOCK_EVERY == 0 && ticker.nanos() - start >= sliceNanos;
                }
                if (c.hasNext()) {
                    from = last + '\0';  // the next key after the last one dealt with
                } else {
                    map++;
                    from = null;
                }
            }
            lastSeen = seen;
            lastPurged = purged - before;
            return map >= 4;
        }

        private boolean purge(int kind, String key, Object value, long now) {
            switch (kind) {
                case 0:
                    if (StoreCodec.recordExpiresAtMillis((byte[]) value) > now) {
                        return false;
                    }
                    file.records.remove(key);  // read in this same turn of the store thread: unchanged
                    return true;
                case 1:
                    return receipts.purgeIfExpired(key, (byte[]) value, now);
                case 2:
                    return receipts.purgeIfOrphaned(key, (String) value);
                default:
                    return taskCounters.purgeIfExpired(key, (byte[]) value, now);
            }
        }
    }
}
