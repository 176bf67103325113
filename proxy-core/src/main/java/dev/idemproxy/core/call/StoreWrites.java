package dev.idemproxy.core.call;

import dev.idemproxy.core.store.StoreRetries;
import dev.idemproxy.core.util.Failures;
import dev.idemproxy.core.util.LogThrottle;
import io.netty.channel.EventLoop;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way a call's trace reaches the store: its record's end, its receipts, its dead letter.
 * A write the store did not take is tried again with growing pauses ({@link StoreRetries#WRITES}:
 * 25 tries, about ten minutes in all), so an outcome reached during a store outage is still kept
 * once the store is back. Every answer comes back to the call's event loop, and the pauses are
 * timers of that loop (its clock): nothing of it runs on a store's thread or a shared pool. Each
 * write replaces by id, so a repeat is harmless. This class is thread-safe; a write is confined to
 * its loop.
 */
final class StoreWrites {
    private static final Logger LOG = LoggerFactory.getLogger(CallRecorder.class);
    /** In a store outage every call's writes fail: a line per 10 s, with the count held back. */
    private static final LogThrottle RETRY_LOG = LogThrottle.every(Duration.ofSeconds(10));
    private static final LogThrottle GAVE_UP_LOG = LogThrottle.every(Duration.ofSeconds(10));

    private final RandomGenerator random;

    /** @param random the jitter of the pauses */
    StoreWrites(RandomGenerator random) {
        this.random = random;
    }

    /** A write whose answer only matters to the log (a receipt, a dead letter). */
    void write(EventLoop loop, Supplier<? extends CompletionStage<?>> op, String callId, String what) {
        attempt(loop, op, null, null, callId, what, 1);
    }

    /**
     * The record's end: each try's answer goes to the call through its door as
     * {@link CallEvent.Recorded}, the last one too (a success, a refusal, or a failure after the
     * last try: {@link #isLast}).
     */
    void record(Door door, Supplier<? extends CompletionStage<Boolean>> op, String callId) {
        tracked(door, op, callId, "outcome of the call", CallEvent.Recorded::new);
    }

    /** What a try of a tracked write tells its call: try {@code n} answered {@code ok} (written), or failed with {@code failure}. */
    interface TryAnswered {
        CallEvent event(int n, boolean ok, Throwable failure);
    }

    /** As {@link #record}, for another write whose every try's answer goes to the call through its door as {@code as} says. */
    void tracked(Door door, Supplier<? extends CompletionStage<Boolean>> op, String callId, String what, TryAnswered as) {
        attempt(door.loop(), op, door, as, callId, what, 1);
    }

    /** Whether try {@code n}, answered with {@code failure} (null: none), is the last of its write. */
    static boolean isLast(int n, Throwable failure) {
        return failure == null || !StoreRetries.WRITES.triesAfter(n);
    }

    private void attempt(EventLoop loop, Supplier<? extends CompletionStage<?>> op, Door door, TryAnswered as, String callId,
            String what, int n) {
        CompletionStage<?> stage;
        try {
            stage = op.get();
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((value, failure) -> {
            Throwable cause = failure == null ? null : Failures.cause(failure);
            if (loop.inEventLoop()) {
                answered(loop, op, door, as, callId, what, n, value, cause);
            } else {
                loop.execute(() -> answered(loop, op, door, as, callId, what, n, value, cause));
            }
        });
    }

    private void answered(EventLoop loop, Supplier<? extends CompletionStage<?>> op, Door door, TryAnswered as, String callId,
            String what, int n, Object value, Throwable failure) {
        if (door != null) {
            door.enter(as.event(n, Boolean.TRUE.equals(value), failure));
        }
        if (failure == null) {
            return;
        }
        if (isLast(n, failure)) {
            long held = GAVE_UP_LOG.pass();
            if (held >= 0) {
                LOG.error("[call={}] gave up writing the {}: {}{}", callId, what, failure.toString(), LogThrottle.more(held));
            }
            return;
        }
        long held = RETRY_LOG.pass();
        if (held >= 0) {
            LOG.warn("[call={}] could not write the {} (try {}): {}; trying again{}", callId, what, n, failure.toString(),
                    LogThrottle.more(held));
        }
        long pause = StoreRetries.WRITES.pauseAfter(n, random).toNanos();
        loop.schedule(() -> attempt(loop, op, door, as, callId, what, n + 1), pause, TimeUnit.NANOSECONDS);
    }
}
