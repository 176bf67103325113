package dev.idemproxy.core.pipeline;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;

/**
 * How an asynchronous result reaches a pass-through call or the gate's held message: on its channel's event loop
 * (a protected call has its own door, {@code call.Door}). A store's stage
 * completes on the store's thread (or is already complete when returned); an upstream's future
 * completes on the loop. Either way {@code then} runs on {@code loop}: at once when the result is
 * already there and the caller is on the loop (so a near-cache replay leaves with the reads of the
 * same turn), else as a task of the loop (even a completed stage's callback would swallow what
 * {@code then} throws). {@code then} gets the value or the failure (a {@link CompletionException}
 * is unwrapped). Stateless.
 */
final class OnLoop {
    private OnLoop() {}

    static <T> void then(CompletionStage<T> stage, EventExecutor loop, BiConsumer<? super T, Throwable> then) {
        CompletableFuture<T> f = stage.toCompletableFuture();
        if (f.isDone() && loop.inEventLoop()) {
            T value = null;
            Throwable failure = null;
            try {
                value = f.join();
            } catch (CompletionException e) {
                failure = e.getCause() != null ? e.getCause() : e;
            } catch (RuntimeException e) {
                failure = e;
            }
            then.accept(value, failure);
            return;
        }
        f.whenComplete((value, failure) -> loop.execute(() -> then.accept(value,
                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure)));
    }

    static <T> void then(Future<T> future, EventExecutor loop, BiConsumer<? super T, Throwable> then) {
        if (future.isDone() && loop.inEventLoop()) {
            then.accept(future.getNow(), future.cause());
            return;
        }
        future.addListener(f -> {
            if (loop.inEventLoop()) {
                then.accept(future.getNow(), future.cause());
            } else {
                loop.execute(() -> then.accept(future.getNow(), future.cause()));
            }
        });
    }
}
