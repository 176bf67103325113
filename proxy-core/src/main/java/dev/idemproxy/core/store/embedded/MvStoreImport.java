package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.StoreCodec;
import dev.idemproxy.core.store.StoreUnavailableException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.MVStoreException;
import org.h2.mvstore.type.ByteArrayDataType;
import org.h2.mvstore.type.StringDataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The move from the store file of idemproxy up to 2026-12 ({@value #FILE_NAME}, H2 MVStore) to the
 * log: on the first start over such a directory, every record, receipt, dead letter and task
 * counter in it is written to the log (its values' bytes are the same {@link StoreCodec}
 * encodings), forced to disk, and the old file renamed {@value #MOVED_NAME} (kept, not deleted:
 * it can be removed once the new version runs well). Either layout of that file is read: the
 * typed maps ({@code records.2}, ...) and the first, untyped ones ({@code records}, ...). A crash
 * during the move leaves the old file in place, and the next start moves it again from scratch.
 * Stateless.
 */
final class MvStoreImport {
    static final String FILE_NAME = "idemproxy.mv.db";
    static final String MOVED_NAME = "idemproxy.mv.db.moved";
    private static final Logger log = LoggerFactory.getLogger(EmbeddedStore.class);

    private MvStoreImport() {
    }

    static boolean pending(Path directory) {
        return Files.exists(directory.resolve(FILE_NAME));
    }

    /** Moves everything in the old file to the log (which must be empty), then renames the old file. */
    static void run(Path directory, SegmentLog segments, LogState state, LogWrites writes) throws IOException {
        Path file = directory.resolve(FILE_NAME);
        long records = 0;
        long receipts = 0;
        long deadLetters = 0;
        long tasks = 0;
        MVStore mv;
        try {
            mv = new MVStore.Builder().fileName(file.toString()).readOnly().open();
        } catch (MVStoreException e) {
            if (e.getErrorCode() == DataUtils.ERROR_FILE_LOCKED) {
                throw new StoreUnavailableException("data directory " + directory + " is in use by another process", e);
            }
            throw new StoreUnavailableException("cannot read the old store file " + file + ": " + e.getMessage(), e);
        }
        try {
            for (Map.Entry<String, byte[]> e : bytes(mv, "records.2", "records").entrySet()) {
                IdempotencyRecord r = StoreCodec.decodeRecord(e.getValue());
                int tag = LogState.recordTag(e.getKey());
                state.pointRecord(tag, state.recordSlot(e.getKey(), tag), writes.record(e.getKey(), r, null, 0));
                records++;
                flushSometimes(segments, records);
            }
            for (Map.Entry<String, byte[]> e : bytes(mv, "receipts.2", "receipts").entrySet()) {
                byte[] v = e.getValue();
                long expiresAt = ByteBuffer.wrap(v).getLong();
                byte[] encoded = new byte[v.length - Long.BYTES];
                System.arraycopy(v, Long.BYTES, encoded, 0, encoded.length);
                Receipt r = StoreCodec.decodeReceipt(encoded);
                int tag = LogState.receiptTag(r.callId());
                state.pointReceipt(tag, state.receiptSlot(r.callId(), tag, 0), r.bizId(), writes.receipt(r, expiresAt));
                state.noteRecent(r.callId());
                receipts++;
                flushSometimes(segments, receipts);
            }
            for (Map.Entry<String, byte[]> e : bytes(mv, "tasks.2", "tasks").entrySet()) {
                ByteBuffer v = ByteBuffer.wrap(e.getValue());
                long count = v.getLong();
                long expiresAt = v.getLong();
                state.pointTask(e.getKey(), count, expiresAt, writes.task(e.getKey(), count, expiresAt));
                tasks++;
            }
            if (mv.hasMap("dlq")) {
                MVMap<String, byte[]> dlq = mv.openMap("dlq");
                for (byte[] v : dlq.values()) {
                    DeadLetter d = StoreCodec.decodeDeadLetter(v);
                    state.pointDeadLetter(d.id(), d.sortKey(), writes.deadLetter(d));
                    deadLetters++;
                    flushSometimes(segments, deadLetters);
                }
            }
        } finally {
            mv.close();
        }
        segments.flush();
        segments.forceActive();
        Files.move(file, directory.resolve(MOVED_NAME), StandardCopyOption.REPLACE_EXISTING);
        log.info("embedded store: moved {} records, {} receipts, {} dead letters and {} task counters from {} to the log;"
                + " the old file is kept as {}", records, receipts, deadLetters, tasks, FILE_NAME, MOVED_NAME);
    }

    private static void flushSometimes(SegmentLog segments, long n) throws IOException {
        if (n % 1024 == 0) {
            segments.flush();
        }
    }

    /** The typed map {@code typed} if the file has it, else the untyped first-layout map {@code first}, else none. */
    private static Map<String, byte[]> bytes(MVStore mv, String typed, String first) {
        if (mv.hasMap(typed)) {
            return mv.openMap(typed, new MVMap.Builder<String, byte[]>().keyType(StringDataType.INSTANCE)
                    .valueType(ByteArrayDataType.INSTANCE));
        }
        if (mv.hasMap(first)) {
            return mv.openMap(first);
        }
        return Map.of();
    }
}
