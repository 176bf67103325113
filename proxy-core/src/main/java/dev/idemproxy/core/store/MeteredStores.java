package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.metrics.ProxyMetrics;
import java.util.List;

/**
 * Meters a backend's stores: each of the four is wrapped in a decorator that times every
 * operation ({@link StoreMeter}). The error counters of every op are registered at zero when the
 * stores are wrapped. Stateless.
 */
public final class MeteredStores {
    /** The {@code op} tag values, one per kind of store operation (docs/metrics.md lists them). */
    static final List<String> OPS = List.of("claim", "renew", "complete", "release", "evict", "get", "receipt_put",
            "receipt_get", "dlq_add", "dlq_list", "dlq_get", "dlq_delete", "dlq_count", "task_charge", "task_get");

    private MeteredStores() {
    }

    /**
     * {@code stores}, each of them timed into {@code metrics}; closing the result closes {@code stores}.
     *
     * @param ticker the time source of the durations
     */
    public static Stores wrap(Stores stores, ProxyMetrics metrics, Ticker ticker) {
        requireNonNull(stores, "stores");
        requireNonNull(metrics, "metrics");
        requireNonNull(ticker, "ticker");
        metrics.registerStoreOps(OPS);
        StoreMeter meter = new StoreMeter(metrics, ticker);
        return new Stores(new MeteredRecordStore(stores.records(), meter), new MeteredReceiptStore(stores.receipts(), meter),
                new MeteredDeadLetterStore(stores.deadLetters(), meter), new MeteredTaskBudgetStore(stores.taskBudgets(), meter));
    }
}
