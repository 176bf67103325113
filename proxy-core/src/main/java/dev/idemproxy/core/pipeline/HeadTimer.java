package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.route.Timeouts;
import dev.idemproxy.core.util.Ticker;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The wait for a pass-through call's response head, which starts once the whole request is in (as
 * Envoy's timeouts do), so a long upload is bounded by the idle timeout, not by perTry.
 *
 * <p>One scheduled check per connection serves all its calls: a call only sets its deadline, and
 * the check, when it fires, either times the call out or moves itself to the deadline of the call
 * then waiting. Nothing is scheduled or cancelled per call unless a call's deadline is earlier than
 * the pending check (a route with a shorter perTry). Not thread-safe: used on one event loop.
 */
final class HeadTimer {
    /** What a call that waited too long is told: its sequence number, and whether {@code total} (not perTry) ran out. */
    interface Expiry {
        void expired(long seq, boolean totalExpired);
    }

    private final EventExecutor executor;
    private final Ticker ticker;
    private final Expiry expiry;
    private ScheduledFuture<?> check;
    /** The call waiting for its head (0: none) and its deadline; when the pending check fires. */
    private long seq;
    private long deadlineNanos;
    private boolean totalFirst;
    private long firesNanos;

    HeadTimer(EventExecutor executor, Ticker ticker, Expiry expiry) {
        this.executor = executor;
        this.ticker = ticker;
        this.expiry = expiry;
    }

    /** Call {@code callSeq} now waits for its head, for min(perTry, total). */
    void start(long callSeq, Timeouts t) {
        long headNanos = TimeUnit.MILLISECONDS.toNanos(Math.min(t.perTry().toMillis(), t.total().toMillis()));
        seq = callSeq;
        totalFirst = t.total().compareTo(t.perTry()) <= 0;
        deadlineNanos = ticker.nanos() + headNanos;
        if (check != null && firesNanos - deadlineNanos <= 0) {
            return;
        }
        schedule(headNanos);
    }

    /** The call no longer waits for a head; a pending check finds nothing to do and lapses. */
    void cancel() {
        seq = 0;
    }

    /** Cancels the pending check too (the connection is gone). */
    void stop() {
        seq = 0;
        if (check != null) {
            check.cancel(false);
            check = null;
        }
    }

    private void schedule(long delayNanos) {
        if (check != null) {
            check.cancel(false);
        }
        firesNanos = ticker.nanos() + delayNanos;
        check = executor.schedule(this::onCheck, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void onCheck() {
        check = null;
        if (seq == 0) {
            return;
        }
        long left = deadlineNanos - ticker.nanos();
        if (left > 0) {
            schedule(left);
            return;
        }
        long expired = seq;
        seq = 0;
        expiry.expired(expired, totalFirst);
    }
}
