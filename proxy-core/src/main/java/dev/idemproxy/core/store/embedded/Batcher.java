package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.util.Mistakes;
import dev.idemproxy.core.util.Mistakes.Mistake;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Group commit on the store's executor: operations queue from any thread; one task takes those
 * queued so far (up to {@value #MAX_BATCH}), runs them in order (each may append frames), writes
 * the frames with one write ({@link SegmentLog#flush}, forced first when the sync is
 * {@code always}) and only then answers them all, so an answer never runs ahead of what it
 * promises. A write that fails fails the batch and the store for good (it then answers every
 * operation as unavailable; a restart recovers from the log). Thread-safe.
 */
final class Batcher {
    private static final int MAX_BATCH = 1024;

    private final StoreExecutor executor;
    private final SegmentLog log;
    /** Planted only: a batch answered before its frames are written ({@link Mistake#EMBEDDED_ANSWER_BEFORE_WRITE}). */
    private final boolean answerFirst;
    private final ConcurrentLinkedQueue<Op<?>> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final List<Op<?>> batch = new ArrayList<>();
    private volatile Throwable failure;

    Batcher(StoreExecutor executor, SegmentLog log, Mistakes mistakes) {
        this.executor = executor;
        this.log = log;
        this.answerFirst = mistakes.has(Mistake.EMBEDDED_ANSWER_BEFORE_WRITE);
    }

    /** Queues {@code body}; the future completes with its result once what it wrote is written. */
    <T> CompletableFuture<T> submit(Callable<T> body) {
        Op<T> op = new Op<>(body);
        Throwable failed = failure;
        if (failed != null) {
            op.future.completeExceptionally(unavailable(failed));
            return op.future;
        }
        queue.add(op);
        if (drainScheduled.compareAndSet(false, true)) {
            schedule();
        }
        return op.future;
    }

    /** Whether a write failed, after which the store answers nothing but failures. */
    boolean failed() {
        return failure != null;
    }

    /** Marks the store failed (a write outside a batch failed); every later operation fails. */
    void fail(Throwable cause) {
        if (failure == null) {
            failure = cause;
        }
    }

    private void schedule() {
        try {
            executor.execute(this::drain);
        } catch (RejectedExecutionException e) {
            drainScheduled.set(false);
            for (Op<?> op; (op = queue.poll()) != null; ) {
                op.future.completeExceptionally(new StoreUnavailableException("embedded store is closed", e));
            }
        }
    }

    private void drain() {
        drainScheduled.set(false);  // before polling: an operation queued from now on schedules another drain
        for (Op<?> op; batch.size() < MAX_BATCH && (op = queue.poll()) != null; ) {
            if (failure == null) {
                op.run();
            }
            batch.add(op);
        }
        if (failure == null && !answerFirst) {
            flush();
        }
        Throwable failed = failure;
        for (Op<?> op : batch) {
            if (failed != null) {
                op.future.completeExceptionally(unavailable(failed));
            } else {
                op.answer();
            }
        }
        batch.clear();
        if (answerFirst) {
            executor.execute(this::flush);  // planted only: the frames written after their answers
        }
        if (!queue.isEmpty() && drainScheduled.compareAndSet(false, true)) {
            schedule();
        }
    }

    private void flush() {
        if (failure == null) {
            try {
                log.flush();
            } catch (IOException | RuntimeException e) {
                fail(e);
            }
        }
    }

    static StoreUnavailableException unavailable(Throwable cause) {
        return new StoreUnavailableException("embedded store failed: " + cause, cause);
    }

    /** One queued operation and, once run, its outcome. */
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
            } catch (UncheckedIOException e) {
                fail(e.getCause());  // the log cannot be trusted past a failed write or read
            } catch (Exception e) {
                error = e;
            } finally {
                log.abortFrame();
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
