package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;


/**
 * One backend's four stores: its idempotency {@link #records()}, {@link #receipts()},
 * {@link #deadLetters()} and {@link #taskBudgets()}, all over the same connection or file. Each
 * caller takes only the store it uses. The record store owns the backend: {@link #close()} (and
 * {@link RecordStore#close()}) releases it for all four, and {@link #isAvailable()} is its
 * reachability. Decorators wrap a part and make a new holder ({@link #withRecords}). This class is
 * immutable. The backends are opened by {@code dev.idemproxy.core.StoreBackends}.
 */
public record Stores(RecordStore records, ReceiptStore receipts, DeadLetterStore deadLetters, TaskBudgetStore taskBudgets)
        implements AutoCloseable {
    public Stores {
        requireNonNull(records, "records");
        requireNonNull(receipts, "receipts");
        requireNonNull(deadLetters, "deadLetters");
        requireNonNull(taskBudgets, "taskBudgets");
    }

    /** The same backend with {@code decorated} (a decorator of {@link #records()}) as its record store. */
    public Stores withRecords(RecordStore decorated) {
        return new Stores(decorated, receipts, deadLetters, taskBudgets);
    }

    /** The backend's last known reachability, for {@code /readyz}; never blocks or does I/O. */
    public boolean isAvailable() {
        return records.isAvailable();
    }

    /** Releases the backend (through the record store and its decorators). */
    @Override
    public void close() {
        records.close();
    }
}
