package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.store.StoreUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.h2.mvstore.MVStoreException;

/**
 * The embedded store's one thread: every operation of the four stores runs on it, which
 * serialises all access to the file (atomicity per key is therefore trivial); callers get a
 * {@link CompletableFuture} that completes on this thread and are never blocked.
 *
 * <p><b>Group commit.</b> The thread takes the operations queued so far (up to
 * {@value #MAX_BATCH}), runs them in arrival order, commits once, and only then completes the
 * futures of those that promise durability ({@link #commitBeforeAnswering}), together with every
 * later operation of the same batch (which may have read their uncommitted writes). Under
 * concurrent callers one file commit thus serves many operations; a lone caller sees one commit
 * per operation. When the last commit served several callers, a commit first lets the operations
 * still arriving join it, looking every 50 µs for up to {@link #GROUP_WAIT_NANOS 500 µs} and going
 * ahead as soon as a look finds none, so commits stay few and full under load (each writes a chunk
 * of tens of KB however few operations it holds) without holding back callers that are all
 * already waiting. Thread-safe.
 */
final class StoreThread {
    /** Most operations per commit, so a steady stream of them cannot hold answers back for long. */
    private static final int MAX_BATCH = 256;
    /**
     * How long a commit waits for more operations when the last one served several callers (a
     * lone caller never waits): a fraction of what one commit costs under load.
     */
    private static final long GROUP_WAIT_NANOS = TimeUnit.MICROSECONDS.toNanos(500);
    /** One look for more operations during that wait: a slice that brings none ends it. */
    private static final long GROUP_WAIT_SLICE_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

    private final EmbeddedFile file;
    private final Ticker ticker;
    private final ScheduledExecutorService thread = daemonThread("idemproxy-embedded-store");
    /** Operations waiting for the store thread, in arrival order. */
    private final ConcurrentLinkedQueue<Op<?>> queue = new ConcurrentLinkedQueue<>();
    /** True while a drain of {@link #queue} is queued on or running at the store thread. */
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    /** Store thread only: an operation of the running batch needs the commit before its answer. */
    private boolean commitPending;
    /** Store thread only: how many answers the last batch held for its commit. */
    private int lastHeld;

    /** @param ticker the time source of the group commit's wait */
    StoreThread(EmbeddedFile file, Ticker ticker) {
        this.file = file;
        this.ticker = ticker;
    }

    /** One daemon thread for scheduled work that stops running delayed tasks once shut down. */
    static ScheduledExecutorService daemonThread(String name) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return executor;
    }

    /**
     * Queues {@code body} for the store thread; the future completes with its result (after the
     * batch's commit when it, or an earlier operation of the batch, promised durability), or with
     * {@link StoreUnavailableException} when the file failed or the store is closed.
     */
    <T> CompletableFuture<T> submit(Callable<T> body) {
        Op<T> op = new Op<>(body);
        queue.add(op);
        if (drainScheduled.compareAndSet(false, true)) {
            scheduleDrain();
        }
        return op.future;
    }

    /**
     * Marks the running operation as one whose answer promises a commit: its future (and every
     * later one of the same batch, which may have read its writes) completes only after the
     * batch's commit. Store thread only.
     */
    void commitBeforeAnswering() {
        commitPending = true;
    }

    /** Runs {@code task} on the store thread, between batches. */
    void execute(Runnable task) {
        thread.execute(task);
    }

    /** Runs {@code task} on the store thread after {@code delayMillis}. */
    void schedule(Runnable task, long delayMillis) {
        thread.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
    }

    /** Runs {@code task} on the store thread every {@code everyMillis}, the first time after {@code firstMillis}. */
    void every(Runnable task, long firstMillis, long everyMillis) {
        thread.scheduleWithFixedDelay(task, firstMillis, everyMillis, TimeUnit.MILLISECONDS);
    }

    boolean isShutdown() {
        return thread.isShutdown();
    }

    /** Takes no more operations; those queued still run. */
    void shutdown() {
        thread.shutdown();
    }

    /** Waits up to {@code seconds} for the queued operations; false when some were still running. Blocking. */
    boolean awaitStopped(long seconds) throws InterruptedException {
        if (thread.awaitTermination(seconds, TimeUnit.SECONDS)) {
            return true;
        }
        thread.shutdownNow();
        return false;
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
            long until = ticker.nanos() + GROUP_WAIT_NANOS;
            while (n < MAX_BATCH && ticker.nanos() - until < 0) {
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
                file.commit();
            } catch (MVStoreException | IllegalStateException e) {
                file.noteFailure();
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
                file.noteFailure();
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
