package dev.idemproxy.core.store.embedded;

import static dev.idemproxy.core.util.Checks.requireArgument;

import dev.idemproxy.core.store.CallPage;
import dev.idemproxy.core.store.CallQuery;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.RecentCallScan;
import dev.idemproxy.core.store.ReceiptStore;
import dev.idemproxy.core.store.StoreCodec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.h2.mvstore.MVMap;

/**
 * The embedded backend's receipts ({@link EmbeddedStore}): {@code receipts} (call id → expiry
 * millis + encoded receipt; call ids begin with their call's start time, so read backwards this
 * map is also the recent calls, newest first) and {@code receiptsByBiz} ({@code bizId NUL sortKey}
 * → call id). A
 * call's receipts (PROCESSING, then its end) share its call id, business id and creation time, so
 * a later one replaces the receipt and its index entry in place: a put writes, it never reads
 * first. Expired receipts stay until the purge sweeps them ({@link #purgeIfExpired}); reads skip
 * them. A receipt written on its own is committed within about a second (the next group commit,
 * or MVStore's background writer). The maps are used on the store thread only; thread-safe as
 * used through {@link StoreThread}.
 */
final class EmbeddedReceipts implements ReceiptStore {
    private final StoreThread thread;
    private final MVMap<String, byte[]> receipts;
    private final MVMap<String, String> byBiz;
    private final Clock clock;

    EmbeddedReceipts(StoreThread thread, MVMap<String, byte[]> receipts, MVMap<String, String> byBiz, Clock clock) {
        this.thread = thread;
        this.receipts = receipts;
        this.byBiz = byBiz;
        this.clock = clock;
    }

    @Override
    public CompletionStage<Void> putReceipt(Receipt receipt, Duration ttl) {
        return thread.submit(() -> {
            put(receipt, now().plus(ttl));
            return null;
        });
    }

    @Override
    public CompletionStage<Optional<Receipt>> receipt(String callId) {
        return thread.submit(() -> Optional.ofNullable(get(callId, now())));
    }

    @Override
    public CompletionStage<List<Receipt>> receiptsByBizId(String bizId, int limit) {
        requireArgument(limit >= 1, "limit " + limit + " (expected: >= 1)");
        return thread.submit(() -> byBizId(bizId, limit, now()));
    }

    @Override
    public CompletionStage<CallPage> recentCalls(CallQuery query) {
        return thread.submit(() -> {
            Instant now = now();
            String from = query.cursor() == null ? null : receipts.lowerKey(query.cursor());
            if (query.cursor() != null && from == null) {
                return new CallPage(List.of(), null);
            }
            // expired receipts are skipped here and left to the purge
            return RecentCallScan.page(query, receipts.cursor(from, null, true), callId -> get(callId, now), null);
        });
    }

    private Instant now() {
        return Instant.ofEpochMilli(clock.millis());
    }

    /** Writes the receipt now. Store thread only: also in a claim's or a completion's own operation. */
    void put(Receipt receipt, Instant expiresAt) {
        byte[] encoded = StoreCodec.encodeReceipt(receipt);
        byte[] value = new byte[Long.BYTES + encoded.length];
        long at = expiresAt.toEpochMilli();
        for (int i = 0; i < Long.BYTES; i++) {
            value[i] = (byte) (at >>> (56 - 8 * i));
        }
        System.arraycopy(encoded, 0, value, Long.BYTES, encoded.length);
        receipts.put(receipt.callId(), value);
        if (receipt.bizId() != null) {
            byBiz.put(bizKey(receipt), receipt.callId());
        }
    }

    private Receipt get(String callId, Instant now) {
        byte[] value = receipts.get(callId);
        return value == null || expiresAt(value) <= now.toEpochMilli() ? null : decode(value);
    }

    private List<Receipt> byBizId(String bizId, int limit, Instant now) {
        String from = bizId + '\0';
        List<Receipt> found = new ArrayList<>();
        for (Iterator<String> keys = byBiz.keyIterator(from); keys.hasNext() && found.size() < limit; ) {
            String key = keys.next();
            if (!key.startsWith(from)) {
                break;
            }
            Receipt r = get(byBiz.get(key), now);
            if (r != null && bizId.equals(r.bizId())) {
                found.add(r);
            }
        }
        return found;
    }

    /**
     * Deletes the receipt {@code value} (found under {@code callId} by the purge's sweep) and its
     * index entry if it expired by {@code nowMillis}; returns whether it did. Store thread only.
     */
    boolean purgeIfExpired(String callId, byte[] value, long nowMillis) {
        if (expiresAt(value) > nowMillis) {
            return false;
        }
        receipts.remove(callId);
        Receipt old = decode(value);
        if (old.bizId() != null) {
            byBiz.remove(bizKey(old), callId);
        }
        return true;
    }

    /** Deletes an index entry (seen by the sweep) whose receipt is gone; returns whether it did. Store thread only. */
    boolean purgeIfOrphaned(String indexKey, String callId) {
        if (receipts.containsKey(callId)) {
            return false;
        }
        byBiz.remove(indexKey, callId);
        return true;
    }

    private static long expiresAt(byte[] value) {
        long at = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            at = (at << 8) | (value[i] & 0xFF);
        }
        return at;
    }

    private static Receipt decode(byte[] value) {
        byte[] encoded = new byte[value.length - Long.BYTES];
        System.arraycopy(value, Long.BYTES, encoded, 0, encoded.length);
        return StoreCodec.decodeReceipt(encoded);
    }

    private static String bizKey(Receipt r) {
        return r.bizId() + '\0' + r.sortKey();
    }
}
