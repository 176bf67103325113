package dev.idemproxy.core.store.embedded;

import static dev.idemproxy.core.Checks.positive;
import static dev.idemproxy.core.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.secret.PrivateFiles;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.DeadLetterPage;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.IdempotencyStore;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.RecordTransitions;
import dev.idemproxy.core.store.RecordTransitions.ClaimTransition;
import dev.idemproxy.core.store.StoreCodec;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.StoredResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.h2.mvstore.Cursor;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.MVStoreException;
import org.h2.mvstore.type.ByteArrayDataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded store: H2 MVStore in {@value #FILE_NAME} under the data directory.
 *
 * <p><b>Threads.</b> Every operation runs on one dedicated store thread, which serialises all
 * access (atomicity per key is therefore trivial); callers get a {@link CompletableFuture} that
 * completes on that thread and are never blocked. The same thread purges expired entries every
 * {@code purgeInterval}, sweeping the maps a slice at a time between operations. Thread-safe.
 *
 * <p><b>Layout.</b> Records ({@value #RECORDS}: record id → encoded record), receipts
 * ({@value #RECEIPTS}, {@value #RECEIPTS_BY_BIZ}) and task counters ({@value #TASKS}) are typed
 * maps (string keys, byte-array or string values, written without MVStore's per-value type tag;
 * strings through {@link AsciiFastStringType}, which writes MVStore's string bytes in one copy);
 * dead letters keep their first maps ({@code dlq}, {@code dlqIds}). There is no expiry index: a
 * value carries its expiry, reads skip what expired, and the purge deletes it later. A protected
 * call thus costs the store two reads and four writes (its record and receipt, claimed and
 * ended); with the index it was twelve B-tree updates and a receipt read.
 *
 * <p><b>Group commit.</b> The store thread takes the operations queued so far (up to
 * {@value #MAX_BATCH}), runs them in arrival order, commits once, and only then completes the
 * futures of those that promise durability, together with every later operation of the same
 * batch (which may have read their uncommitted writes). Under concurrent callers one file commit
 * thus serves many operations; a lone caller sees the same one commit per operation as before.
 * When the last commit served several callers, a commit first lets the operations still arriving
 * join it, looking every 50 µs for up to {@link #GROUP_WAIT_NANOS 500 µs} and going ahead as soon
 * as a look finds none, so commits stay few and full under load (each writes a chunk of tens of KB
 * however few operations it holds) without holding back callers that are all already waiting.
 *
 * <p><b>Durability.</b> A claim that creates or takes over a record, {@link #complete},
 * {@link #markNotRetained}, {@link #release} and {@link #addDeadLetter} are committed to the
 * file before their future completes, so a claimed key or an ended call survives a process crash
 * ({@code kill -9}) once acknowledged: a claim comes back as an in-flight record whose lease
 * lapses, never as a fresh key. A commit reaches the OS page cache, not necessarily the disk: the
 * file is forced to disk (fsync) once a second, not per commit, so an OS crash or power loss may
 * lose the commits since the last sync. A receipt written with a claim or a completion shares its
 * commit. Renewals, evictions, other receipt writes and task retry counters are
 * committed by MVStore's background writer within about a second (or by the next group commit);
 * losing one in a crash only costs a lease extension, an eviction to redo, a receipt's last
 * state, or the last second's retry charges.
 *
 * <p><b>File size.</b> Every commit writes a new chunk (tens of KB: the changed B-tree pages and
 * MVStore's chunk metadata), and MVStore reuses a chunk's space only once it holds no live data
 * and was written at least its {@code retentionTime} ago, so the file holds about that many
 * seconds of commits besides the live data. MVStore's default of 45 s assumes the OS writes data
 * back within that time; instead a thread of its own forces the file to disk every
 * {@value #SYNC_MILLIS} ms and the retention is {@value #RETENTION_MILLIS} ms, which keeps that
 * premise with a margin and keeps the file several times smaller under a steady load. Pages keep
 * MVStore's default of 48 keys: 16 made commits smaller but every read deeper, and a replay from
 * this store cost 40 % more CPU (docs/benchmarks-history.md).
 *
 * <p><b>Exclusivity.</b> MVStore locks the file: a second process (or a second open in this one)
 * fails with "data directory X is in use by another process".
 */
public final class EmbeddedIdempotencyStore implements IdempotencyStore {
    static final String FILE_NAME = "idemproxy.mv.db";
    private static final Logger log = LoggerFactory.getLogger(EmbeddedIdempotencyStore.class);
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
    /**
     * The maps of the second file layout: typed (keys and values written without a type tag) and
     * without an expiry index, which cost every write two more B-tree updates; the purge sweeps
     * the maps instead. See {@link #migrateFirstLayout}.
     */
    static final String RECORDS = "records.2";
    static final String RECEIPTS = "receipts.2";
    static final String RECEIPTS_BY_BIZ = "receiptsByBiz.2";
    static final String TASKS = "tasks.2";
    /** Most operations per commit, so a steady stream of them cannot hold answers back for long. */
    private static final int MAX_BATCH = 256;
    /**
     * How long a commit waits for more operations when the last one served several callers (a
     * lone caller never waits): a fraction of what one commit costs under load.
     */
    private static final long GROUP_WAIT_NANOS = TimeUnit.MICROSECONDS.toNanos(500);
    /** One look for more operations during that wait: a slice that brings none ends it. */
    private static final long GROUP_WAIT_SLICE_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    /** How long MVStore keeps a chunk it no longer needs, after writing it, before reusing its space. */
    static final int RETENTION_MILLIS = 10_000;
    /** How often the sync thread forces the file to disk: well within {@link #RETENTION_MILLIS}. */
    static final int SYNC_MILLIS = RETENTION_MILLIS / 10;

    private final Clock clock;
    private final MVStore mv;
    private final MVMap<String, byte[]> records;
    private final EmbeddedReceipts receipts;
    private final EmbeddedDeadLetters deadLetters;
    private final EmbeddedTaskCounters taskCounters;
    private final MVMap<String, byte[]> receiptsMap;
    private final MVMap<String, String> receiptsByBizMap;
    private final MVMap<String, byte[]> tasksMap;
    /** Store thread only: a purge sweep is under way. */
    private boolean sweeping;
    private final ScheduledExecutorService thread;
    /** Operations waiting for the store thread, in arrival order. */
    private final ConcurrentLinkedQueue<Op<?>> queue = new ConcurrentLinkedQueue<>();
    /** True while a drain of {@link #queue} is queued on or running at the store thread. */
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    /** Store thread only: an operation of the running batch needs the commit before its answer. */
    private boolean commitPending;
    /** Store thread only: how many answers the last batch held for its commit. */
    private int lastHeld;
    private volatile boolean failed;
    /** Forces the file to disk every {@link #SYNC_MILLIS}; its own thread, so an fsync never holds up the store thread. */
    private final ScheduledExecutorService syncThread;

    private EmbeddedIdempotencyStore(Clock clock, MVStore mv, Duration purgeInterval, int syncMillis) {
        this.clock = clock;
        this.mv = mv;
        this.records = mv.openMap(RECORDS, bytesBy());
        this.receiptsMap = mv.openMap(RECEIPTS, bytesBy());
        this.receiptsByBizMap = mv.openMap(RECEIPTS_BY_BIZ, stringsBy());
        this.tasksMap = mv.openMap(TASKS, bytesBy());
        migrateFirstLayout(mv, records, receiptsMap, receiptsByBizMap, tasksMap);
        this.receipts = new EmbeddedReceipts(receiptsMap, receiptsByBizMap);
        this.deadLetters = new EmbeddedDeadLetters(mv.openMap("dlq"), mv.openMap("dlqIds"));
        this.taskCounters = new EmbeddedTaskCounters(tasksMap);
        this.thread = daemonThread("idemproxy-embedded-store");
        long every = purgeInterval.toMillis();
        // The first sweep soon after start: a file opened after a long stop may be mostly expired.
        thread.scheduleWithFixedDelay(this::startSweep, Math.min(every, FIRST_SWEEP_MILLIS), every, TimeUnit.MILLISECONDS);
        this.syncThread = daemonThread("idemproxy-embedded-sync");
        syncThread.scheduleWithFixedDelay(this::syncQuietly, syncMillis, syncMillis, TimeUnit.MILLISECONDS);
    }

    /** One daemon thread for scheduled work that stops running delayed tasks once shut down. */
    private static ScheduledExecutorService daemonThread(String name) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return executor;
    }

    /**
     * Opens (creating if needed) the store in {@code directory}. Blocking: call it at start-up, not
     * on an event loop.
     *
     * @param clock         the time source for leases and expiry
     * @param purgeInterval how often expired entries are deleted from the file
     * @throws StoreUnavailableException when the directory is in use by another process or unusable
     */
    public static EmbeddedIdempotencyStore open(Path directory, Clock clock, Duration purgeInterval) {
        return open(directory, clock, purgeInterval, RETENTION_MILLIS);
    }

    /** As {@link #open(Path, Clock, Duration)} with another retention (and sync every tenth of it); for tests. */
    static EmbeddedIdempotencyStore open(Path directory, Clock clock, Duration purgeInterval, int retentionMillis) {
        requireNonNull(directory, "directory");
        requireNonNull(clock, "clock");
        positive(purgeInterval, "purgeInterval");
        Path file = directory.resolve(FILE_NAME);
        makePrivate(directory, file);
        EmbeddedIdempotencyStore[] self = {null};
        MVStore mv;
        try {
            KeptLengthFileStore fileStore = new KeptLengthFileStore();
            fileStore.open(file.toString(), false, null);  // locks the file, or throws
            try {
                mv = new MVStore.Builder()
                        .adoptFileStore(fileStore)  // the MVStore closes it
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
        self[0] = new EmbeddedIdempotencyStore(clock, mv, purgeInterval, Math.max(1, retentionMillis / 10));
        return self[0];
    }

    /**
     * The data directory and everything in it owner-only (CONTRACT §12): created 0700 when absent,
     * group and other bits taken off at every start, the store file created 0600 before MVStore
     * opens it. What the process may not change (a mount point owned by root) is said once, at WARN.
     */
    private static void makePrivate(Path directory, Path file) {
        List<String> unchanged = new ArrayList<>();
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

    /** Opens the store with a one-minute purge interval. */
    public static EmbeddedIdempotencyStore open(Path directory, Clock clock) {
        return open(directory, clock, Duration.ofMinutes(1));
    }

    private Instant now() {
        return Instant.ofEpochMilli(clock.millis());
    }

    @Override
    public CompletionStage<ClaimResult> claim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
        return submit(() -> {
            String id = key.id();
            Instant now = now();
            IdempotencyRecord stored = read(id);
            ClaimTransition t = RecordTransitions.claim(RecordTransitions.live(stored, now), fingerprint, owner, lease, ctx, now);
            if (t.next() != null) {
                write(id, t.next());
                // A claim is durable before its call is forwarded: after a crash it comes back as
                // an in-flight record whose lease lapses, never as a fresh key that would run again.
                commitBeforeAnswering();
            }
            if (ctx.receipt() != null && t.result() instanceof ClaimResult.Claimed) {
                receipts.put(ctx.receipt().receipt(), now.plus(ctx.receipt().ttl()));
            }
            return t.result();
        });
    }

    @Override
    public CompletionStage<Boolean> renew(RecordKey key, OwnedClaim claim, Duration lease) {
        return update(key, false, (current, now) -> RecordTransitions.renew(current, claim, lease, now));
    }

    @Override
    public CompletionStage<Boolean> complete(RecordKey key, OwnedClaim claim, StoredResponse response, int attempts, Duration ttl,
            ReceiptPut receipt) {
        return update(key, true, (current, now) -> {
            IdempotencyRecord next = RecordTransitions.complete(current, claim, response, attempts, ttl, now);
            if (next != null && receipt != null) {
                receipts.put(receipt.receipt(), now.plus(receipt.ttl()));  // in the same commit as the record
            }
            return next;
        });
    }

    @Override
    public CompletionStage<Boolean> markNotRetained(RecordKey key, OwnedClaim claim, int status, int attempts, Duration ttl) {
        return update(key, true, (current, now) -> RecordTransitions.notRetained(current, claim, status, attempts, ttl, now));
    }

    @Override
    public CompletionStage<Boolean> release(RecordKey key, String owner) {
        return submit(() -> {
            String id = key.id();
            IdempotencyRecord stored = read(id);
            if (!RecordTransitions.heldBy(RecordTransitions.live(stored, now()), owner)) {
                return false;
            }
            write(id, null);
            commitBeforeAnswering();
            return true;
        });
    }

    @Override
    public CompletionStage<Boolean> evict(RecordKey key) {
        return submit(() -> {
            String id = key.id();
            IdempotencyRecord stored = read(id);
            write(id, null);
            return RecordTransitions.live(stored, now()) != null;
        });
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> get(RecordKey key) {
        return submit(() -> Optional.ofNullable(RecordTransitions.live(read(key.id()), now())));
    }

    @Override
    public CompletionStage<Void> putReceipt(Receipt receipt, Duration ttl) {
        return submit(() -> {
            receipts.put(receipt, now().plus(ttl));
            return null;
        });
    }

    @Override
    public CompletionStage<Optional<Receipt>> receipt(String callId) {
        return submit(() -> Optional.ofNullable(receipts.get(callId, now())));
    }

    @Override
    public CompletionStage<List<Receipt>> receiptsByBizId(String bizId, int limit) {
        requireArgument(limit >= 1, "limit " + limit + " (expected: >= 1)");
        return submit(() -> receipts.byBizId(bizId, limit, now()));
    }

    @Override
    public CompletionStage<Void> addDeadLetter(DeadLetter entry) {
        return submit(() -> {
            deadLetters.add(entry);
            commitBeforeAnswering();
            return null;
        });
    }

    @Override
    public CompletionStage<DeadLetterPage> deadLetters(String cursor, int limit) {
        requireArgument(limit >= 1, "limit " + limit + " (expected: >= 1)");
        return submit(() -> deadLetters.page(cursor, limit));
    }

    @Override
    public CompletionStage<Optional<DeadLetter>> deadLetter(String id) {
        return submit(() -> deadLetters.get(id));
    }

    @Override
    public CompletionStage<Boolean> deleteDeadLetter(String id) {
        return submit(() -> deadLetters.delete(id));
    }

    @Override
    public CompletionStage<Long> deadLetterCount() {
        return submit(deadLetters::count);
    }

    @Override
    public CompletionStage<Long> chargeTaskRetry(String windowKey, int maxRetries, Duration ttl) {
        return submit(() -> {
            Instant now = now();
            return taskCounters.charge(windowKey, maxRetries, now, now.plus(ttl));
        });
    }

    @Override
    public CompletionStage<Long> taskRetriesUsed(String windowKey) {
        return submit(() -> taskCounters.used(windowKey, now()));
    }

    @Override
    public boolean isAvailable() {
        return !failed && !thread.isShutdown() && !mv.isClosed();
    }

    /** Waits for queued operations, then commits and closes the file. Blocking. */
    @Override
    public void close() {
        if (thread.isShutdown()) {
            return;
        }
        syncThread.shutdown();
        thread.shutdown();
        try {
            syncThread.awaitTermination(10, TimeUnit.SECONDS);
            if (!thread.awaitTermination(10, TimeUnit.SECONDS)) {
                log.warn("embedded store: operations still queued after 10s; closing anyway");
                thread.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        mv.close();
    }

    /** Deletes every entry that expired by now, in one go; completes with how many. */
    CompletionStage<Integer> purgeExpired() {
        return sweep(Integer.MAX_VALUE, Long.MAX_VALUE);
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
                    thread.schedule(next, pause, TimeUnit.MILLISECONDS);
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
     * every cache miss costing more as it grew (docs/benchmarks-history.md). Where most of a slice has
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
            long start = System.nanoTime();
            int seen = 0;
            int before = purged;
            boolean outOfTime = false;
            while (map < 4 && seen < budget && !outOfTime) {
                MVMap<String, ?> m = map == 0 ? records : map == 1 ? receiptsMap : map == 2 ? receiptsByBizMap : tasksMap;
                Cursor<String, ?> c = m.cursor(from);
                String last = null;
                while (seen < budget && !outOfTime && c.hasNext()) {
                    last = c.next();
                    if (purge(map, last, c.getValue(), now)) {
                        purged++;
                    }
                    seen++;
                    outOfTime = seen % SWEEP_CLOCK_EVERY == 0 && System.nanoTime() - start >= sliceNanos;
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
                    records.remove(key);  // read in this same turn of the store thread: unchanged
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

    /** The MVStore, for tests and diagnostics. */
    MVStore mvStore() {
        return mv;
    }

    private IdempotencyRecord read(String id) {
        byte[] value = records.get(id);
        return value == null ? null : StoreCodec.decodeRecord(value);
    }

    /** Replaces the record under {@code id} by {@code next} (null: delete). */
    private void write(String id, IdempotencyRecord next) {
        if (next == null) {
            records.remove(id);
        } else {
            records.put(id, StoreCodec.encodeRecord(next));
        }
    }

    private interface Step {
        IdempotencyRecord apply(IdempotencyRecord current, Instant now);
    }

    private CompletionStage<Boolean> update(RecordKey key, boolean commit, Step step) {
        return submit(() -> {
            String id = key.id();
            Instant now = now();
            IdempotencyRecord stored = read(id);
            IdempotencyRecord next = step.apply(RecordTransitions.live(stored, now), now);
            if (next == null) {
                return false;
            }
            write(id, next);
            if (commit) {
                commitBeforeAnswering();
            }
            return true;
        });
    }

    /**
     * Marks the running operation as one whose answer promises a commit: its future (and every
     * later one of the same batch, which may have read its writes) completes only after the
     * batch's commit. Store thread only.
     */
    private void commitBeforeAnswering() {
        commitPending = true;
    }

    private <T> CompletableFuture<T> submit(Callable<T> body) {
        Op<T> op = new Op<>(body);
        queue.add(op);
        if (drainScheduled.compareAndSet(false, true)) {
            scheduleDrain();
        }
        return op.future;
    }

    private void scheduleDrain() {
        try {
            thread.execute(this::drain);
        } catch (RejectedExecutionException e) {
            drainScheduled.set(false);
            for (Op<?> op; (op = queue.poll()) != null; ) {
                op.future.completeExceptionally(new StoreUnavailableException("embedded store is closed", e));
            }
        }
    }

    /**
     * Group commit: runs up to {@value #MAX_BATCH} queued operations, commits once if any of them
     * needs it, then answers. An answer that promises durability (and any answer that may have
     * seen such an operation's writes) is given only after that commit. Store thread only.
     */
    private void drain() {
        drainScheduled.set(false);  // before polling: an operation queued from now on schedules another drain
        List<Op<?>> held = new ArrayList<>();
        int n = runQueued(held, 0);
        if (commitPending && lastHeld > 1) {
            // Callers are concurrent (the last commit served several): while operations keep
            // arriving, let them join this commit, up to GROUP_WAIT_NANOS in all. Each commit writes
            // a chunk of tens of KB however few operations it holds, so fewer, fuller commits cost
            // far less per operation; when a slice brings nothing new (every caller is already
            // waiting on this commit), it goes ahead at once.
            long until = System.nanoTime() + GROUP_WAIT_NANOS;
            while (n < MAX_BATCH && System.nanoTime() < until) {
                LockSupport.parkNanos(GROUP_WAIT_SLICE_NANOS);
                int more = runQueued(held, n);
                if (more == n) {
                    break;
                }
                n = more;
            }
        }
        lastHeld = held.size();
        if (commitPending) {
            commitPending = false;
            try {
                mv.commit();
            } catch (MVStoreException | IllegalStateException e) {
                failed = mv.isClosed() || mv.getPanicException() != null;
                StoreUnavailableException failure = new StoreUnavailableException("embedded store failed: " + e.getMessage(), e);
                held.forEach(op -> op.future.completeExceptionally(failure));
                held.clear();
            }
        }
        held.forEach(Op::answer);
        if (!queue.isEmpty() && drainScheduled.compareAndSet(false, true)) {
            scheduleDrain();
        }
    }

    /**
     * Runs queued operations until the queue is empty or the batch holds {@value #MAX_BATCH};
     * those awaiting the commit go to {@code held}, the others are answered. Returns the batch's
     * size so far. Store thread only.
     */
    private int runQueued(List<Op<?>> held, int n) {
        for (; n < MAX_BATCH; n++) {
            Op<?> op = queue.poll();
            if (op == null) {
                break;
            }
            op.run();
            if (commitPending) {
                held.add(op);
            } else {
                op.answer();
            }
        }
        return n;
    }

    /** One queued operation and, once run, its outcome. Run and answered on the store thread. */
    private final class Op<T> {
        final Callable<T> body;
        final CompletableFuture<T> future = new CompletableFuture<>();
        T result;
        Throwable error;

        Op(Callable<T> body) {
            this.body = body;
        }

        void run() {
            try {
                result = body.call();
            } catch (MVStoreException | IllegalStateException e) {
                failed = mv.isClosed() || mv.getPanicException() != null;
                error = new StoreUnavailableException("embedded store failed: " + e.getMessage(), e);
            } catch (Exception e) {
                error = e;
            }
        }

        void answer() {
            if (error != null) {
                future.completeExceptionally(error);
            } else {
                future.complete(result);
            }
        }
    }
}
