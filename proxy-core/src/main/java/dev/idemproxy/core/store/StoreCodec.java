package dev.idemproxy.core.store;

import dev.idemproxy.core.store.IdempotencyRecord.State;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The compact binary encoding shared by the embedded and Redis backends. Big-endian, as
 * {@link DataOutputStream} writes it:
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
 *                string reason , int32 httpStatus , int32 attempts , instant createdAt , instant completedAt
 *   deadLetter:= 'D' , 1 , string id , string callId , string taskId , string bizId , string route ,
 *                string scopeHash , string key , string reason , int32 lastStatus , int32 attempts ,
 *                instant failedAt , string method , string uri , headers , bytes body
 * </pre>
 * A new field means a new version byte; decoders reject versions they do not know. Stateless.
 */
public final class StoreCodec {
    private static final int VERSION = 1;

    private StoreCodec() {
    }

    public static byte[] encodeResponse(StoredResponse response) {
        return write(out -> writeResponse(out, response));
    }

    public static StoredResponse decodeResponse(byte[] bytes) {
        return decodeResponse(bytes, 0);
    }

    /**
     * A response encoded at {@code offset} of {@code bytes}, up to their end. Read straight from the
     * array (no stream: every replay from a remote store decodes one), as {@link #readResponse} would.
     */
    public static StoredResponse decodeResponse(byte[] bytes, int offset) {
        ByteBuffer in = ByteBuffer.wrap(bytes, offset, bytes.length - offset);
        try {
            int m = in.get() & 0xff;
            int v = in.get() & 0xff;
            if (m != 'S' || v != VERSION) {
                throw new IllegalStateException("corrupt store value: unknown encoding '" + (char) m + "' version " + v
                        + " (expected: 'S' version " + VERSION + ")");
            }
            int status = in.getInt();
            int n = in.getInt();
            if (n < 0) {
                throw new IllegalStateException("corrupt store value: " + n + " headers");
            }
            StoredHeader[] headers = new StoredHeader[n];
            for (int i = 0; i < n; i++) {
                headers[i] = new StoredHeader(string(in), string(in));
            }
            byte[] body = new byte[in.getInt()];
            in.get(body);
            return new StoredResponse(status, List.of(headers), body, true);
        } catch (BufferUnderflowException | NegativeArraySizeException | NullPointerException e) {
            throw new IllegalStateException("corrupt store value: " + e, e);
        }
    }

    private static String string(ByteBuffer in) {
        int n = in.getInt();
        if (n < 0) {
            return null;
        }
        if (n > in.remaining()) {
            throw new BufferUnderflowException();
        }
        String s = new String(in.array(), in.arrayOffset() + in.position(), n, StandardCharsets.UTF_8);
        in.position(in.position() + n);
        return s;
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

    public static IdempotencyRecord decodeRecord(byte[] bytes) {
        return read(bytes, in -> {
            expect(in, 'R');
            State state = State.values()[in.readUnsignedByte()];
            return new IdempotencyRecord(state, readString(in), readString(in), readString(in), readInstant(in),
                    readInstant(in), readInstant(in), readInstant(in), in.readInt(), in.readInt(),
                    in.readBoolean() ? readResponse(in) : null);
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
        });
    }

    public static Receipt decodeReceipt(byte[] bytes) {
        return read(bytes, in -> {
            expect(in, 'C');
            return new Receipt(readString(in), readString(in), readString(in), readString(in), readString(in),
                    readString(in), in.readInt(), in.readInt(), readInstant(in), readInstant(in));
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
            int lastStatus = in.readInt();
            int attempts = in.readInt();
            Instant failedAt = readInstant(in);
            StoredRequest req = new StoredRequest(readString(in), readString(in), readHeaders(in), readBytes(in));
            return new DeadLetter(id, callId, taskId, bizId, key, reason, lastStatus, attempts, failedAt, req);
        });
    }

    private static void writeResponse(DataOutputStream out, StoredResponse response) throws IOException {
        header(out, 'S');
        out.writeInt(response.status());
        writeHeaders(out, response.headers());
        writeBytes(out, response.bodyArray());
    }

    private static StoredResponse readResponse(DataInputStream in) throws IOException {
        expect(in, 'S');
        int status = in.readInt();
        return new StoredResponse(status, readHeaders(in), readBytes(in), true);
    }

    private static void header(DataOutputStream out, char magic) throws IOException {
        out.writeByte(magic);
        out.writeByte(VERSION);
    }

    private static void expect(DataInputStream in, char magic) throws IOException {
        int m = in.readUnsignedByte();
        int v = in.readUnsignedByte();
        if (m != magic || v != VERSION) {
            throw new IOException("unknown encoding '" + (char) m + "' version " + v + " (expected: '" + magic + "' version " + VERSION + ")");
        }
    }

    private static void writeHeaders(DataOutputStream out, List<StoredHeader> headers) throws IOException {
        out.writeInt(headers.size());
        for (StoredHeader h : headers) {
            writeString(out, h.name());
            writeString(out, h.value());
        }
    }

    private static List<StoredHeader> readHeaders(DataInputStream in) throws IOException {
        int n = in.readInt();
        List<StoredHeader> headers = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            headers.add(new StoredHeader(readString(in), readString(in)));
        }
        return List.copyOf(headers);
    }

    private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return b;
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        if (s == null) {
            out.writeInt(-1);
            return;
        }
        writeBytes(out, s.getBytes(StandardCharsets.UTF_8));
    }

    private static String readString(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            return null;
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    private static void writeInstant(DataOutputStream out, Instant t) throws IOException {
        out.writeLong(t == null ? -1 : t.toEpochMilli());
    }

    private static Instant readInstant(DataInputStream in) throws IOException {
        long ms = in.readLong();
        return ms < 0 ? null : Instant.ofEpochMilli(ms);
    }

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private interface Reader<T> {
        T read(DataInputStream in) throws IOException;
    }

    private static byte[] write(Writer w) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            w.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static <T> T read(byte[] bytes, Reader<T> r) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            return r.read(in);
        } catch (IOException e) {
            throw new IllegalStateException("corrupt store value: " + e.getMessage(), e);
        }
    }
}
