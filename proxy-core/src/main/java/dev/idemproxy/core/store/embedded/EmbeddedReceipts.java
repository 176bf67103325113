package dev.idemproxy.core.store.embedded;

import static dev.idemproxy.core.util.Checks.requireArgument;

import dev.idemproxy.core.store.CallPage;
import dev.idemproxy.core.store.CallQuery;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.RecentCallScan;
import dev.idemproxy.core.store.ReceiptStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The embedded backend's receipts ({@link EmbeddedStore}): a receipt is a part of a log frame
 * (alone, or with its call's record), found by call id and by business id through
 * {@link LogState}'s indexes. A put is written to the log before it is acknowledged. Expired
 * receipts are skipped by reads and dropped by the compaction. The newest
 * {@value LogState#RECENT_CALLS} are listed newest first ({@link #recentCalls}) from
 * {@link LogState#recent}. Thread-safe.
 */
final class EmbeddedReceipts implements ReceiptStore {
    private final Batcher batcher;
    private final LogState state;
    private final LogWrites writes;
    private final Clock clock;

    EmbeddedReceipts(Batcher batcher, LogState state, LogWrites writes, Clock clock) {
        this.batcher = batcher;
        this.state = state;
        this.writes = writes;
        this.clock = clock;
    }

    @Override
    public CompletionStage<Void> putReceipt(Receipt receipt, Duration ttl) {
        return batcher.submit(() -> {
            long expiresAt = clock.millis() + ttl.toMillis();
            long position = writes.receipt(receipt, expiresAt);
            int tag = LogState.receiptTag(receipt.callId());
            state.pointReceipt(tag, state.receiptSlot(receipt.callId(), tag, 0), receipt.bizId(), position);
            state.noteRecent(receipt.callId());
            return null;
        });
    }

    @Override
    public CompletionStage<Optional<Receipt>> receipt(String callId) {
        return batcher.submit(() -> {
            int tag = LogState.receiptTag(callId);
            int slot = state.receiptSlot(callId, tag, 0);
            return Optional.ofNullable(slot < 0 ? null : state.receiptAt(state.receipts.position(slot), clock.millis()));
        });
    }

    @Override
    public CompletionStage<CallPage> recentCalls(CallQuery query) {
        return batcher.submit(() -> {
            long now = clock.millis();
            java.util.NavigableSet<String> older = query.cursor() == null ? state.recent
                    : state.recent.headSet(query.cursor(), false);
            List<String> stale = new ArrayList<>();
            CallPage page = RecentCallScan.page(query, older.descendingIterator(), callId -> {
                int slot = state.receiptSlot(callId, LogState.receiptTag(callId), 0);
                return slot < 0 ? null : state.receiptAt(state.receipts.position(slot), now);
            }, stale::add);
            stale.forEach(state.recent::remove);
            return page;
        });
    }

    @Override
    public CompletionStage<List<Receipt>> receiptsByBizId(String bizId, int limit) {
        requireArgument(limit >= 1, "limit " + limit + " (expected: >= 1)");
        return batcher.submit(() -> {
            long now = clock.millis();
            int tag = LogState.bizTag(bizId);
            List<Receipt> found = new ArrayList<>();
            for (int s = state.biz.first(tag); s >= 0; s = state.biz.next(tag, s)) {
                Receipt r = state.receiptAt(state.biz.position(s), now);
                if (r != null && bizId.equals(r.bizId())) {
                    found.add(r);
                }
            }
            found.sort(Comparator.comparing(Receipt::sortKey));
            return found.size() > limit ? new ArrayList<>(found.subList(0, limit)) : found;
        });
    }
}
