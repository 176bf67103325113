package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.StoreCodec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Iterator;
import org.h2.mvstore.MVMap;

/**
 * Receipts in MVStore: {@code receipts} (call id → expiry millis + encoded receipt) and
 * {@code receiptsByBiz} ({@code bizId NUL sortKey} → call id). Not thread-safe: used only on the
 * store thread.
 */
final class EmbeddedReceipts {
    private final MVMap<String, byte[]> receipts;
    private final MVMap<String, String> byBiz;
    private final ExpiryIndex expiry;

    EmbeddedReceipts(MVMap<String, byte[]> receipts, MVMap<String, String> byBiz, ExpiryIndex expiry) {
        this.receipts = receipts;
        this.byBiz = byBiz;
        this.expiry = expiry;
    }

    /** A stored receipt with its expiry. */
    private record Stored(Receipt receipt, Instant expiresAt) {
    }

    void put(Receipt receipt, Instant expiresAt) {
        remove(receipt.callId());
        byte[] encoded = StoreCodec.encodeReceipt(receipt);
        byte[] value = new byte[8 + encoded.length];
        long at = expiresAt.toEpochMilli();
        for (int i = 0; i < 8; i++) {
            value[i] = (byte) (at >>> (56 - 8 * i));
        }
        System.arraycopy(encoded, 0, value, 8, encoded.length);
        receipts.put(receipt.callId(), value);
        expiry.add(expiresAt, ExpiryIndex.RECEIPT, receipt.callId());
        if (receipt.bizId() != null) {
            byBiz.put(bizKey(receipt), receipt.callId());
        }
    }

    Receipt get(String callId, Instant now) {
        Stored s = read(callId);
        return s == null || !s.expiresAt().isAfter(now) ? null : s.receipt();
    }

    List<Receipt> byBizId(String bizId, int limit, Instant now) {
        String from = bizId + '\0';
        List<Receipt> found = new ArrayList<>();
        for (Iterator<String> keys = byBiz.keyIterator(from); keys.hasNext() && found.size() < limit; ) {
            String key = keys.next();
            if (!key.startsWith(from)) {
                break;
            }
            Receipt r = get(byBiz.get(key), now);
            if (r != null) {
                found.add(r);
            }
        }
        return found;
    }

    /** Deletes the receipt and its index entries. */
    void remove(String callId) {
        Stored old = read(callId);
        if (old == null) {
            return;
        }
        receipts.remove(callId);
        expiry.remove(old.expiresAt(), ExpiryIndex.RECEIPT, callId);
        if (old.receipt().bizId() != null) {
            byBiz.remove(bizKey(old.receipt()));
        }
    }

    private Stored read(String callId) {
        byte[] value = receipts.get(callId);
        if (value == null) {
            return null;
        }
        long at = 0;
        for (int i = 0; i < 8; i++) {
            at = (at << 8) | (value[i] & 0xFF);
        }
        byte[] encoded = new byte[value.length - 8];
        System.arraycopy(value, 8, encoded, 0, encoded.length);
        return new Stored(StoreCodec.decodeReceipt(encoded), Instant.ofEpochMilli(at));
    }

    private static String bizKey(Receipt r) {
        return r.bizId() + '\0' + r.sortKey();
    }
}
