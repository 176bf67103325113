package dev.idemproxy.core.store.memory;

import static dev.idemproxy.core.util.Checks.requireArgument;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import dev.idemproxy.core.store.CallPage;
import dev.idemproxy.core.store.CallQuery;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.RecentCallScan;
import dev.idemproxy.core.store.ReceiptStore;
import dev.idemproxy.core.store.WeightBudget;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The memory backend's receipts ({@link MemoryStore}): a Caffeine cache by call id, weighed within
 * a quarter of the heap bound, and a per-business-id index of sort keys and a sorted set of every
 * receipt's call id (the recent calls), kept in step with it (an evicted or expired receipt leaves them). Thread-safe.
 */
final class MemoryReceipts implements ReceiptStore {
    private final MemoryStore backend;
    private final Cache<String, TimedReceipt> receipts;
    private final Map<String, ConcurrentSkipListMap<String, String>> byBiz = new ConcurrentHashMap<>();
    /** Every receipt's call id: the recent calls (call ids begin with their start time), in step with the cache. */
    private final java.util.concurrent.ConcurrentSkipListSet<String> recent = new java.util.concurrent.ConcurrentSkipListSet<>();

    private record TimedReceipt(Receipt receipt, Instant expiresAt) {
    }

    MemoryReceipts(MemoryStore backend, WeightBudget share) {
        this.backend = backend;
        this.receipts = Caffeine.newBuilder()
                .maximumWeight(share.capacity())
                .weigher((String callId, TimedReceipt r) -> share.weight(MemoryFootprint.of(r.receipt())))
                .ticker(backend.ticker())
                .expireAfter(new TimedExpiry<String, TimedReceipt>(TimedReceipt::expiresAt))
                .executor(Runnable::run)
                .removalListener((String callId, TimedReceipt r, RemovalCause cause) -> {
                    if (r != null && cause != RemovalCause.REPLACED) {
                        recent.remove(callId);
                        unindex(r.receipt());
                    }
                })
                .build();
    }

    @Override
    public CompletionStage<Void> putReceipt(Receipt receipt, Duration ttl) {
        return backend.run(() -> {
            write(receipt, ttl);
            return null;
        });
    }

    /** Writes (or replaces) the receipt now, on the caller's thread: also for a claim or completion that carries one. */
    void write(Receipt receipt, Duration ttl) {
        // put, not compute: the same atomic replace, but Caffeine's compute (a remap under the
        // bin's lock, expiry recomputed inside it) was 7 % of the event loop's samples (JFR,
        // memory store, new keys)
        TimedReceipt previous = receipts.asMap().put(receipt.callId(), new TimedReceipt(receipt, backend.now().plus(ttl)));
        if (previous != null) {
            unindex(previous.receipt());
        } else {
            recent.add(receipt.callId());
        }
        if (receipt.bizId() != null) {
            byBiz.computeIfAbsent(receipt.bizId(), b -> new ConcurrentSkipListMap<>()).put(receipt.sortKey(), receipt.callId());
        }
    }

    @Override
    public CompletionStage<Optional<Receipt>> receipt(String callId) {
        return backend.run(() -> Optional.ofNullable(live(callId)));
    }

    @Override
    public CompletionStage<List<Receipt>> receiptsByBizId(String bizId, int limit) {
        requireArgument(limit >= 1, "limit " + limit + " (expected: >= 1)");
        return backend.run(() -> {
            List<Receipt> found = new ArrayList<>();
            ConcurrentSkipListMap<String, String> index = byBiz.get(bizId);
            if (index == null) {
                return found;
            }
            for (String callId : index.values()) {
                Receipt r = live(callId);
                if (r != null && bizId.equals(r.bizId())) {
                    found.add(r);
                    if (found.size() == limit) {
                        break;
                    }
                }
            }
            return found;
        });
    }

    @Override
    public CompletionStage<CallPage> recentCalls(CallQuery query) {
        return backend.run(() -> RecentCallScan.page(query, (query.cursor() == null ? recent.descendingSet()
                : recent.headSet(query.cursor(), false).descendingSet()).iterator(), this::live, null));
    }

    private Receipt live(String callId) {
        TimedReceipt r = receipts.getIfPresent(callId);
        return r == null || !r.expiresAt().isAfter(backend.now()) ? null : r.receipt();
    }

    private void unindex(Receipt r) {
        if (r.bizId() != null) {
            byBiz.computeIfPresent(r.bizId(), (b, index) -> {
                index.remove(r.sortKey());
                return index.isEmpty() ? null : index;
            });
        }
    }

    void clear() {
        receipts.invalidateAll();
    }

    void cleanUp() {
        receipts.cleanUp();
    }

    long count() {
        return receipts.estimatedSize();
    }
}
