package dev.idemproxy.core.store;

import dev.idemproxy.core.store.IdempotencyRecord.State;
import dev.idemproxy.core.util.ByteOut;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The compact binary encoding shared by the embedded and Redis backends. Big-endian (as
 * {@code DataOutputStream} writes it):
 * <pre>
 *   string    := int32 length (-1 = null) , UTF-8 bytes
 *   instant   := int64 epoch milliseconds (-1 = null)
 *   headers   := int32 count , (string name , string value)*        -- in order
 *   bytes     := int32 length , bytes
 *   response  := 'S' , 1 (version) , int32 status , headers , bytes body
 *   record    := 'R' , 1 , byte state ordinal (IN_FLIGHT, COMPLETED, NOT_RETAINED) , string owner ,
 *                string callId , string fingerprint , instant leaseExpiresAt , instant createdAt ,
 *                instant completedAt , instant expiresAt , int32 attempts , int32 status ,
 *                byte 0|1 , response (when 1)
 *   receipt   := 'C' , 1 , string callId , string bizId , string key , string route , string status ,
 *                string reason , int32 httpStatus , int32 attempts , instant createdAt , instant completedAt ,
 *                [ string tool , [ detail ] ]
 *   detail    := 'T' , 1 , string taskId , int32 omitted , int32 count , try* , byte 0|1 , [ bytes heads ]
 *   try       := int32 number , int32 startMs , int32 ms , int32 status , string failure , byte class ordinal ,
 *                byte next (0 none, else ordinal + 1) , int32 waitMs , string why , int32 checkMs ,
 *                byte afterCheck (as next) , string afterCheckWhy
 *   heads     := as CallHeads encodes them (its own layout, kept as it is)
 *   deadLetter:= 'D' , 1 , string id , string callId , string taskId , string bizId , string route ,
 *                string scopeHash , string key , string reason , int32 lastStatus , int32 attempts ,
 *                instant failedAt , string method , string uri , headers , bytes body , [ string owner ]
 * </pre>
 * A new field means a new version byte; decoders reject versions they do not know. The one
 * exception is a field appended at the end of a value, which decoders have always left unread
 * (a dead letter's owner, a receipt's tool, then its detail: task id,
 * tries and heads, itself versioned by its own {@code 'T'} header): the proxy of the version before reads such a value as it did, and
 * this one reads the values that one wrote (without the field) as before, so during a rolling
 * upgrade over one Redis both list and replay each other's entries. Stateless.
 */
public final class StoreCodec {
    static final int VERSION = 1;

    private StoreCodec() {
    }

    public static byte[] encodeResponse(StoredResponse response) {
        return write(out -> writeResponse(out, response));
    }

    public static StoredResponse decodeResponse(byte[] bytes) {
        return decodeResponse(bytes, 0);
    }

    /** A response encoded at {@code offset} of {@code bytes}, up to their end. */
    public static StoredResponse decodeResponse(byte[] bytes, int offset) {
        return read(ByteBuffer.wrap(bytes, offset, bytes.length - offset), StoreCodec::readResponse);
    }

    public static byte[] encodeRecord(IdempotencyRecord r) {
        return write(out -> {
            header(out, 'R');
            out.writeByte(r.state().ordinal());
            writeString(out, r.owner());
            writeString(out, r.callId());
            writeString(out, r.fingerprint());
            writeInstant(out, r.leaseExpiresAt());
            writeInstant(out, r.createdAt());
            writeInstant(out, r.completedAt());
            writeInstant(out, r.expiresAt());
            out.writeInt(r.attempts());
            out.writeInt(r.status());
            out.writeBoolean(r.response() != null);
            if (r.response() != null) {
                writeResponse(out, r.response());
            }
        });
    }

    /**
     * When an encoded record expires (epoch ms), read without decoding it: the embedded store's
     * purge looks at every record this way.
     */
    public static long recordExpiresAtMillis(byte[] bytes) {
        return read(bytes, in -> {
            expect(in, 'R');
            in.get();  // state
            for (int i = 0; i < 3; i++) {  // owner, callId, fingerprint
                skipString(in);
            }
            in.position(in.position() + 3 * Long.BYTES);  // leaseExpiresAt, createdAt, completedAt
            return in.getLong();
        });
    }

    public static IdempotencyRecord decodeRecord(byte[] bytes) {
        return read(bytes, in -> {
            expect(in, 'R');
            State state = State.values()[in.get() & 0xff];
            return new IdempotencyRecord(state, readString(in), readString(in), readString(in), readInstant(in),
                    readInstant(in), readInstant(in), readInstant(in), in.getInt(), in.getInt(),
                    in.get() != 0 ? readResponse(in) : null);
        });
    }

    public static byte[] encodeReceipt(Receipt r) {
        return write(out -> {
            header(out, 'C');
            for (String s : new String[] {r.callId(), r.bizId(), r.key(), r.route(), r.status(), r.reason()}) {
                writeString(out, s);
            }
            out.writeInt(r.httpStatus());
            out.writeInt(r.attempts());
            writeInstant(out, r.createdAt());
            writeInstant(out, r.completedAt());
            if (r.tool() != null || r.hasDetail()) {
                writeString(out, r.tool());
            }
            if (r.hasDetail()) {
                ReceiptDetailCodec.write(out, r);
            }
        });
    }

    public static Receipt decodeReceipt(byte[] bytes) {
        return read(bytes, in -> {
            expect(in, 'C');
            Receipt r = new Receipt(readString(in), readString(in), readString(in), readString(in), readString(in),
                    readString(in), in.getInt(), in.getInt(), readInstant(in), readInstant(in));
            if (!in.hasRemaining()) {
                return r;  // no tool: a plain call, or an earlier version's
            }
            r = r.withTool(readString(in));
            return in.hasRemaining() ? ReceiptDetailCodec.read(in, r) : r;  // no detail: an earlier version's
        });
    }

    public static byte[] encodeDeadLetter(DeadLetter d) {
        return write(out -> {
            header(out, 'D');
            RecordKey k = d.recordKey();
            for (String s : new String[] {d.id(), d.callId(), d.taskId(), d.bizId(), k.route(), k.scopeHash(), k.key(), d.reason()}) {
                writeString(out, s);
            }
            out.writeInt(d.lastStatus());
            out.writeInt(d.attempts());
            writeInstant(out, d.failedAt());
            StoredRequest req = d.request();
            writeString(out, req.method());
            writeString(out, req.uri());
            writeHeaders(out, req.headers());
            writeBytes(out, req.body());
            writeString(out, d.owner());
        });
    }

    public static DeadLetter decodeDeadLetter(byte[] bytes) {
        return read(bytes, in -> {
            expect(in, 'D');
            String id = readString(in);
            String callId = readString(in);
            String taskId = readString(in);
            String bizId = readString(in);
            RecordKey key = new RecordKey(readString(in), readString(in), readString(in));
            String reason = readString(in);
            int lastStatus = in.getInt();
            int attempts = in.getInt();
            Instant failedAt = readInstant(in);
            StoredRequest req = new StoredRequest(readString(in), readString(in), readHeaders(in), readBytes(in));
            String owner = in.hasRemaining() ? readString(in) : null;  // absent in entries of earlier versions: the call id
            return new DeadLetter(id, callId, taskId, bizId, key, reason, lastStatus, attempts, failedAt, req, owner);
        });
    }

    private static void writeResponse(ByteOut out, StoredResponse response) {
        header(out, 'S');
        out.writeInt(response.status());
        writeHeaders(out, response.headers());
        writeBytes(out, response.bodyArray());
    }

    private static StoredResponse readResponse(ByteBuffer in) throws IOException {
        expect(in, 'S');
        int status = in.getInt();
        return new StoredResponse(status, readHeaders(in), readBytes(in), true);
    }

    static void header(ByteOut out, char magic) {
        out.writeByte(magic);
        out.writeByte(VERSION);
    }

    static void expect(ByteBuffer in, char magic) throws IOException {
        int m = in.get() & 0xff;
        int v = in.get() & 0xff;
        if (m != magic || v != VERSION) {
            throw new IOException("unknown encoding '" + (char) m + "' version " + v + " (expected: '" + magic + "' version " + VERSION + ")");
        }
    }

    static void writeHeaders(ByteOut out, List<StoredHeader> headers) {
        out.writeInt(headers.size());
        for (StoredHeader h : headers) {
            writeString(out, h.name());
            writeString(out, h.value());
        }
    }

    static List<StoredHeader> readHeaders(ByteBuffer in) throws IOException {
        int n = in.getInt();
        if (n < 0 || n > in.remaining() / 8) {  // a header is at least its two lengths
            throw new IOException(n + " headers with " + in.remaining() + " bytes left");
        }
        List<StoredHeader> headers = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            headers.add(new StoredHeader(readString(in), readString(in)));
        }
        return List.copyOf(headers);
    }

    private static void writeBytes(ByteOut out, byte[] b) {
        out.writeInt(b.length);
        out.write(b, 0, b.length);
    }

    private static byte[] readBytes(ByteBuffer in) throws IOException {
        byte[] b = new byte[length(in)];
        in.get(b);
        return b;
    }

    /** A length read from {@code in}, checked against what is left: a damaged one is an error, not an allocation. */
    private static int length(ByteBuffer in) throws IOException {
        int n = in.getInt();
        if (n < 0 || n > in.remaining()) {
            throw new IOException("a length of " + n + " with " + in.remaining() + " bytes left");
        }
        return n;
    }

    static void writeString(ByteOut out, String s) {
        if (s == null) {
            out.writeInt(-1);
            return;
        }
        if (out.writeAscii(s)) {
            return;
        }
        writeBytes(out, s.getBytes(StandardCharsets.UTF_8));
    }

    private static void skipString(ByteBuffer in) throws IOException {
        if (in.getInt(in.position()) == -1) {
            in.getInt();
            return;
        }
        int n = length(in);
        in.position(in.position() + n);
    }

    static String readString(ByteBuffer in) throws IOException {
        if (in.getInt(in.position()) == -1) {
            in.getInt();
            return null;
        }
        int n = length(in);
        String str = new String(in.array(), in.arrayOffset() + in.position(), n, StandardCharsets.UTF_8);
        in.position(in.position() + n);
        return str;
    }

    private static void writeInstant(ByteOut out, Instant t) {
        out.writeLong(t == null ? -1 : t.toEpochMilli());
    }

    private static Instant readInstant(ByteBuffer in) throws IOException {
        long ms = in.getLong();
        return ms < 0 ? null : Instant.ofEpochMilli(ms);
    }

    private interface Writer {
        void write(ByteOut out);
    }

    private interface Reader<T> {
        T read(ByteBuffer in) throws IOException;
    }

    /**
     * Encodes into this thread's scratch buffer and copies out the result: a protected call on
     * Redis encodes two receipts and a response on its event loop, and a fresh buffer grew by
     * copying (256, 512, 1,024 bytes) before the final copy. A buffer grown past
     * 64 KiB (a large response) is not kept.
     */
    private static byte[] write(Writer w) {
        ByteOut out = SCRATCH.get().take();
        try {
            w.write(out);
            return out.toByteArray();
        } finally {
            out.give();
        }
    }

    private static final ThreadLocal<ByteOut> SCRATCH = ThreadLocal.withInitial(() -> new ByteOut(1024, 64 * 1024));

    private static <T> T read(byte[] bytes, Reader<T> r) {
        return read(ByteBuffer.wrap(bytes), r);
    }

    /** Reads straight from the array (no stream, no copy but the fields'): every replay from Redis decodes one. */
    private static <T> T read(ByteBuffer in, Reader<T> r) {
        try {
            return r.read(in);
        } catch (IOException | BufferUnderflowException e) {
            throw new IllegalStateException("corrupt store value: " + e, e);
        }
    }
}
