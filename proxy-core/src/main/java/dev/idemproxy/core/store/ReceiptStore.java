package dev.idemproxy.core.store;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * Receipts by call id, indexed by business id (docs/admin-api.md): one of a backend's four stores
 * ({@link Stores}). A claim's and a completion's receipts are written by the {@link RecordStore}
 * with the record; this store writes the others. Every operation is asynchronous and never blocks
 * its caller; a failure completes the stage with {@link StoreUnavailableException}.
 * Times are kept with millisecond precision. Implementations are thread-safe.
 */
public interface ReceiptStore {

    /**
     * Writes (or replaces) the receipt with this call id, indexed by its business id when it has one.
     * The receipt disappears after {@code ttl}.
     */
    CompletionStage<Void> putReceipt(Receipt receipt, Duration ttl);

    /** The receipt with this call id, if it exists and has not expired. */
    CompletionStage<Optional<Receipt>> receipt(String callId);

    /**
     * Receipts carrying this business id, oldest first (by createdAt, then call id), at most {@code limit}.
     */
    CompletionStage<List<Receipt>> receiptsByBizId(String bizId, int limit);

    /**
     * Recent calls, newest first: by call id, descending (a call id begins with its call's start
     * time in epoch milliseconds, {@code CallId}), filtered and paged as {@code query} says. Every
     * receipt written through this store or with a claim or completion is listed until it expires
     * (on Redis, the newest {@code 100,000} at most; embedded, the newest {@code 10,000}).
     */
    CompletionStage<CallPage> recentCalls(CallQuery query);
}
