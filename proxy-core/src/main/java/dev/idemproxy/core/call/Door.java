package dev.idemproxy.core.call;

import dev.idemproxy.core.util.Failures;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * A protected call's one door: every asynchronous result reaches the call here, as a
 * {@link CallEvent}, on the call's event loop, one at a time. A store's stage completes on the
 * store's thread (or is already complete when returned); an upstream's future and a timer fire on
 * the loop; whatever completes elsewhere only makes the event there and hands it to the loop. An
 * event that arrives while the call is handling another (a store that answers at once, during the
 * transition that asked it) is queued and handled when that transition is done: transitions run
 * to completion and never nest. Not thread-safe, but for {@link #when}'s completions: used on the
 * call's loop.
 */
final class Door {
    /** The call's side of the door. */
    @FunctionalInterface
    interface Receiver {
        void on(CallEvent event);
    }

    private final EventLoop loop;
    private final Receiver call;
    private boolean handling;
    private ArrayDeque<CallEvent> queued;

    Door(EventLoop loop, Receiver call) {
        this.loop = loop;
        this.call = call;
    }

    EventLoop loop() {
        return loop;
    }

    /** Hands {@code event} to the call: now when on the loop (after the transition under way), else as a task of the loop. */
    void enter(CallEvent event) {
        if (!loop.inEventLoop()) {
            loop.execute(() -> enter(event));
            return;
        }
        if (handling) {
            if (queued == null) {
                queued = new ArrayDeque<>(2);
            }
            queued.add(event);
            return;
        }
        handling = true;
        try {
            call.on(event);
            CallEvent next;
            while (queued != null && (next = queued.poll()) != null) {
                call.on(next);
            }
        } finally {
            handling = false;
        }
    }

    /**
     * The stage's value or failure, made an event by {@code as} and handed in: at once when it is
     * already there and the caller is on the loop (a replay leaves with the reads of the same
     * turn), else from the loop. A failure is unwrapped ({@link Failures#cause}).
     */
    <T> void when(CompletionStage<T> stage, BiFunction<? super T, Throwable, CallEvent> as) {
        CompletableFuture<T> f = stage.toCompletableFuture();
        if (f.isDone() && loop.inEventLoop()) {
            T value = null;
            Throwable failure = null;
            try {
                value = f.join();
            } catch (RuntimeException e) {
                failure = Failures.cause(e);
            }
            enter(as.apply(value, failure));
            return;
        }
        f.whenComplete((value, failure) -> {
            Throwable cause = failure == null ? null : Failures.cause(failure);
            loop.execute(() -> enter(as.apply(value, cause)));
        });
    }

    /** As {@link #when(CompletionStage, BiFunction)} for a Netty future (which completes on the loop). */
    <T> void when(Future<T> future, BiFunction<? super T, Throwable, CallEvent> as) {
        if (future.isDone()) {
            enter(as.apply(future.getNow(), future.cause()));
            return;
        }
        future.addListener(f -> enter(as.apply(future.getNow(), future.cause())));
    }

    /** Hands {@code event} in after {@code nanos} on the loop's clock. */
    ScheduledFuture<?> after(long nanos, CallEvent event) {
        return loop.schedule(() -> enter(event), Math.max(0, nanos), TimeUnit.NANOSECONDS);
    }
}
