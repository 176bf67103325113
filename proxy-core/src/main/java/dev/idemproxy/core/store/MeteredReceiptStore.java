package dev.idemproxy.core.store;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * A receipt store, timed ({@link MeteredStores}): ops {@code receipt_put} and {@code receipt_get}
 * (by call id and by business id). Thread-safe if the store is.
 */
final class MeteredReceiptStore extends ForwardingReceiptStore {
    private final ReceiptStore store;
    private final StoreMeter meter;

    MeteredReceiptStore(ReceiptStore store, StoreMeter meter) {
        this.store = store;
        this.meter = meter;
    }

    @Override
    protected ReceiptStore delegate() {
        return store;
    }

    @Override
    public CompletionStage<Void> putReceipt(Receipt receipt, Duration ttl) {
        return meter.timed("receipt_put", () -> store.putReceipt(receipt, ttl));
    }

    @Override
    public CompletionStage<Optional<Receipt>> receipt(String callId) {
        return meter.timed("receipt_get", () -> store.receipt(callId));
    }

    @Override
    public CompletionStage<List<Receipt>> receiptsByBizId(String bizId, int limit) {
        return meter.timed("receipt_get", () -> store.receiptsByBizId(bizId, limit));
    }

    @Override
    public CompletionStage<CallPage> recentCalls(CallQuery query) {
        return meter.timed("receipt_get", () -> store.recentCalls(query));
    }
}
