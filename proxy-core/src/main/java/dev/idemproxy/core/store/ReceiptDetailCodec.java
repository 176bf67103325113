package dev.idemproxy.core.store;

import dev.idemproxy.core.tries.CallHeads;
import dev.idemproxy.core.tries.CallTries;
import dev.idemproxy.core.tries.Try;
import dev.idemproxy.core.tries.TryClass;
import dev.idemproxy.core.tries.TryNext;
import dev.idemproxy.core.util.ByteOut;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code detail} of an encoded receipt ({@link StoreCodec}'s layout): its task id, tries and
 * heads, appended after the tool so that values of earlier versions decode as before and earlier
 * versions read these as they did (they leave the rest of a value unread). Stateless.
 */
final class ReceiptDetailCodec {
    private static final TryClass[] CLASSES = TryClass.values();
    private static final TryNext[] NEXTS = TryNext.values();

    private ReceiptDetailCodec() {
    }

    static void write(ByteOut out, Receipt r) {
        StoreCodec.header(out, 'T');
        StoreCodec.writeString(out, r.taskId());
        CallTries tries = r.tries();
        out.writeInt(tries.omitted());
        out.writeInt(tries.tries().size());
        for (Try t : tries.tries()) {
            out.writeInt(t.number());
            out.writeInt(clamp(t.startMs()));
            out.writeInt(clamp(t.ms()));
            out.writeInt(t.status());
            StoreCodec.writeString(out, t.failure());
            out.writeByte(t.outcomeClass().ordinal());
            out.writeByte(t.next() == null ? 0 : t.next().ordinal() + 1);
            out.writeInt(clamp(t.waitMs()));
            StoreCodec.writeString(out, t.why());
            out.writeInt(clamp(t.checkMs()));
            out.writeByte(t.afterCheck() == null ? 0 : t.afterCheck().ordinal() + 1);
            StoreCodec.writeString(out, t.afterCheckWhy());
        }
        CallHeads heads = r.heads();
        out.writeBoolean(heads != null);
        if (heads != null) {
            byte[] b = heads.bytes();
            out.writeInt(b.length);
            out.write(b, 0, b.length);
        }
    }

    static Receipt read(ByteBuffer in, Receipt r) throws IOException {
        StoreCodec.expect(in, 'T');
        String taskId = StoreCodec.readString(in);
        int omitted = in.getInt();
        int n = in.getInt();
        if (n < 0 || n > CallTries.MAX_KEPT) {
            throw new IOException(n + " tries (expected: 0.." + CallTries.MAX_KEPT + ")");
        }
        List<Try> tries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int number = in.getInt();
            long startMs = in.getInt();
            long ms = in.getInt();
            int status = in.getInt();
            String failure = StoreCodec.readString(in);
            TryClass cls = CLASSES[in.get()];
            TryNext next = next(in.get());
            long waitMs = in.getInt();
            String why = StoreCodec.readString(in);
            long checkMs = in.getInt();
            TryNext afterCheck = next(in.get());
            tries.add(new Try(number, startMs, ms, status, failure, cls, next, waitMs, why, checkMs, afterCheck,
                    StoreCodec.readString(in)));
        }
        CallHeads heads = null;
        if (in.get() != 0) {
            int n2 = in.getInt();
            if (n2 < 0 || n2 > in.remaining()) {
                throw new IOException("heads of " + n2 + " bytes with " + in.remaining() + " left");
            }
            byte[] b = new byte[n2];
            in.get(b);
            heads = CallHeads.fromBytes(b);
        }
        return r.withDetail(taskId, tries.isEmpty() && omitted == 0 ? CallTries.NONE : new CallTries(tries, omitted), heads);
    }

    private static TryNext next(byte b) {
        return b == 0 ? null : NEXTS[b - 1];
    }

    private static int clamp(long v) {
        return (int) Math.max(-1, Math.min(Integer.MAX_VALUE, v));
    }
}
