package dev.idemproxy.core.store;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * A receipt store that passes every operation to {@link #delegate()}, asked once per operation; a
 * decorator overrides only what it changes. Thread-safe if the delegate is.
 */
public abstract class ForwardingReceiptStore implements ReceiptStore {

    protected ForwardingReceiptStore() {
    }

    /** The store the operations go to; non-null. */
    protected abstract ReceiptStore delegate();

    @Override
    public CompletionStage<Void> putReceipt(Receipt receipt, Duration ttl) {
        return delegate().putReceipt(receipt, ttl);
    }

    @Override
    public CompletionStage<Optional<Receipt>> receipt(String callId) {
        return delegate().receipt(callId);
    }

    @Override
    public CompletionStage<List<Receipt>> receiptsByBizId(String bizId, int limit) {
        return delegate().receiptsByBizId(bizId, limit);
    }

    @Override
    public CompletionStage<CallPage> recentCalls(CallQuery query) {
        return delegate().recentCalls(query);
    }
}
