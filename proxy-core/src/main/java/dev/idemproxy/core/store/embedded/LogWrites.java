package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.StoreCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * Appends the embedded store's frames ({@link LogFormat}) to the log's pending buffer; each method
 * returns the new frame's position. Records are encoded with {@link RecordCodec}; receipts and
 * dead letters with {@link StoreCodec}, so a field it appends flows through. Executor only.
 */
final class LogWrites {
    private final SegmentLog log;

    LogWrites(SegmentLog log) {
        this.log = log;
    }

    /** A record, with the call's receipt in the same frame when {@code receipt} is not null. */
    long record(String id, IdempotencyRecord record, Receipt receipt, long receiptExpiresAt) {
        byte[] c = receipt == null ? null : StoreCodec.encodeReceipt(receipt);
        int max = 1 + LogFormat.maxString(id) + 8 + 4 + RecordCodec.maxLength(record) + (c == null ? 0 : receiptMax(receipt, c));
        ByteBuffer out = begin(max);
        out.put(LogFormat.RECORD);
        LogFormat.putString(out, id);
        long expiresAt = record.expiresAt().toEpochMilli();
        out.putLong(expiresAt);
        int at = out.position();
        out.position(at + 4);
        RecordCodec.write(out, record);
        out.putInt(at, out.position() - at - 4);
        if (c != null) {
            putReceipt(out, receipt, c, receiptExpiresAt);
        }
        return log.endFrame(c == null ? 1 : 2, Math.max(expiresAt, c == null ? 0 : receiptExpiresAt));
    }

    long receipt(Receipt receipt, long expiresAt) {
        byte[] c = StoreCodec.encodeReceipt(receipt);
        ByteBuffer out = begin(receiptMax(receipt, c));
        putReceipt(out, receipt, c, expiresAt);
        return log.endFrame(1, expiresAt);
    }

    long recordDeleted(String id) {
        ByteBuffer out = begin(1 + LogFormat.maxString(id));
        out.put(LogFormat.RECORD_DELETED);
        LogFormat.putString(out, id);
        return log.endFrame(1, 0);
    }

    long deadLetter(DeadLetter d) {
        byte[] e = StoreCodec.encodeDeadLetter(d);
        String sortKey = d.sortKey();
        ByteBuffer out = begin(1 + LogFormat.maxString(d.id()) + LogFormat.maxString(sortKey) + 5 + e.length);
        out.put(LogFormat.DEAD_LETTER);
        LogFormat.putString(out, d.id());
        LogFormat.putString(out, sortKey);
        LogFormat.putBytes(out, e);
        return log.endFrame(1, Long.MAX_VALUE);
    }

    long deadLetterDeleted(String id) {
        ByteBuffer out = begin(1 + LogFormat.maxString(id));
        out.put(LogFormat.DEAD_LETTER_DELETED);
        LogFormat.putString(out, id);
        return log.endFrame(1, 0);
    }

    long task(String key, long count, long expiresAt) {
        ByteBuffer out = begin(1 + LogFormat.maxString(key) + 16);
        out.put(LogFormat.TASK);
        LogFormat.putString(out, key);
        out.putLong(count).putLong(expiresAt);
        return log.endFrame(1, expiresAt);
    }

    /** A frame of parts copied as they are: {@code parts} (kind bytes included), {@code count} of them. */
    long copy(ByteBuffer parts, int count, long maxExpiry) {
        ByteBuffer out = begin(parts.remaining());
        out.put(parts);
        return log.endFrame(count, maxExpiry);
    }

    private ByteBuffer begin(int maxPayload) {
        try {
            return log.beginFrame(maxPayload);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int receiptMax(Receipt r, byte[] c) {
        return 1 + LogFormat.maxString(r.callId()) + (r.bizId() == null ? 1 : LogFormat.maxString(r.bizId())) + 16 + 5 + c.length;
    }

    private static void putReceipt(ByteBuffer out, Receipt receipt, byte[] c, long expiresAt) {
        out.put(LogFormat.RECEIPT);
        LogFormat.putString(out, receipt.callId());
        LogFormat.putNullableString(out, receipt.bizId());
        out.putLong(expiresAt);
        out.putLong(receipt.createdAt().toEpochMilli());
        LogFormat.putBytes(out, c);
    }
}
