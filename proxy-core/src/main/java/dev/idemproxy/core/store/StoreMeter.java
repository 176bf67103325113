package dev.idemproxy.core.store;

import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.metrics.ProxyMetrics;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Times store operations for the metered stores ({@link MeteredStores}): records
 * {@code idemproxy_store_duration_seconds{op}} and, when one fails, {@code idemproxy_store_errors_total{op}}.
 * A synchronous throw is turned into a failed stage, so callers see one failure path. Immutable;
 * thread-safe.
 */
final class StoreMeter {
    private final ProxyMetrics metrics;
    private final Ticker ticker;

    StoreMeter(ProxyMetrics metrics, Ticker ticker) {
        this.metrics = metrics;
        this.ticker = ticker;
    }

    <T> CompletionStage<T> timed(String op, Supplier<CompletionStage<T>> call) {
        long start = ticker.nanos();
        CompletionStage<T> stage;
        try {
            stage = call.get();
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        if (stage instanceof CompletableFuture<T> done && done.isDone()) {
            // Answered at once (memory store, near-cache): timed here, no dependent stage to run.
            metrics.storeOp(op, ticker.nanos() - start, done.isCompletedExceptionally());
            return stage;
        }
        return stage.whenComplete((v, err) -> metrics.storeOp(op, ticker.nanos() - start, err != null));
    }
}
