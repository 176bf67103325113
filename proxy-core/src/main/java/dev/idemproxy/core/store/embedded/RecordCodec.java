package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.IdempotencyRecord.State;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The log's compact encoding of an {@link IdempotencyRecord} (a record part's value in
 * {@link LogFormat}): the fields of {@code StoreCodec}'s record in its order, with variable-length
 * integers and every string that is lowercase hex of even length (call ids, owner tokens' parts,
 * fingerprints) packed two digits a byte. About 40 % smaller than {@code StoreCodec}'s for a
 * protected call's record, which is most of what the log writes.
 * <pre>
 *   record   := byte (state | 0x80 when priors follow) , str owner , str callId , str fingerprint , varlong leaseExpiresAt ,
 *               varlong createdAt , varlong (completedAt + 1, 0 = none) , varlong expiresAt ,
 *               varint attempts , varint status , byte 0|1 , response (when 1) ,
 *               (varint count , str callId * count)   (when priors follow: a record in flight taken over)
 *   response := varint status , varint header count , (str name , str value)* , varint length , body
 *   str      := varint (n &lt;&lt; 1 | 1) , n/2 bytes of packed hex digits   (n hex digits)
 *             | varint (n &lt;&lt; 1) , n bytes of UTF-8
 * </pre>
 * Times are epoch milliseconds. A record with no priors is written as before priors existed, so
 * logs written by earlier versions read as they were. Stateless.
 */
final class RecordCodec {
    /** The state byte's flag: the record's priors follow its response. */
    private static final int PRIORS = 0x80;
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private RecordCodec() {
    }

    /** An upper bound of the encoding's length. */
    static int maxLength(IdempotencyRecord r) {
        int n = 1 + maxStr(r.owner()) + maxStr(r.callId()) + maxStr(r.fingerprint()) + 4 * 10 + 2 * 5 + 1 + 5;
        for (String p : r.priors()) {
            n += maxStr(p);
        }
        StoredResponse s = r.response();
        if (s != null) {
            n += 10 + s.bodyLength() + 5;
            for (StoredHeader h : s.headers()) {
                n += maxStr(h.name()) + maxStr(h.value());
            }
        }
        return n;
    }

    static void write(ByteBuffer out, IdempotencyRecord r) {
        out.put((byte) (r.state().ordinal() | (r.priors().isEmpty() ? 0 : PRIORS)));
        putStr(out, r.owner());
        putStr(out, r.callId());
        putStr(out, r.fingerprint());
        putVarlong(out, r.leaseExpiresAt().toEpochMilli());
        putVarlong(out, r.createdAt().toEpochMilli());
        putVarlong(out, r.completedAt() == null ? 0 : r.completedAt().toEpochMilli() + 1);
        putVarlong(out, r.expiresAt().toEpochMilli());
        putVarlong(out, r.attempts());
        putVarlong(out, r.status());
        StoredResponse s = r.response();
        out.put((byte) (s == null ? 0 : 1));
        if (s != null) {
            putVarlong(out, s.status());
            putVarlong(out, s.headers().size());
            for (StoredHeader h : s.headers()) {
                putStr(out, h.name());
                putStr(out, h.value());
            }
            putVarlong(out, s.bodyLength());
            out.put(s.bodyBuffer());
        }
        if (!r.priors().isEmpty()) {
            putVarlong(out, r.priors().size());
            for (String p : r.priors()) {
                putStr(out, p);
            }
        }
    }

    static IdempotencyRecord read(ByteBuffer in) {
        int first = in.get() & 0xff;
        State state = State.values()[first & ~PRIORS];
        String owner = getStr(in);
        String callId = getStr(in);
        String fingerprint = getStr(in);
        Instant lease = Instant.ofEpochMilli(getVarlong(in));
        Instant created = Instant.ofEpochMilli(getVarlong(in));
        long completed = getVarlong(in);
        Instant expires = Instant.ofEpochMilli(getVarlong(in));
        int attempts = (int) getVarlong(in);
        int status = (int) getVarlong(in);
        StoredResponse response = null;
        if (in.get() != 0) {
            int code = (int) getVarlong(in);
            int n = (int) getVarlong(in);
            if (n < 0 || n > in.remaining()) {
                throw new IllegalStateException(n + " headers with " + in.remaining() + " bytes left");
            }
            List<StoredHeader> headers = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                headers.add(new StoredHeader(getStr(in), getStr(in)));
            }
            byte[] body = new byte[(int) getVarlong(in)];
            in.get(body);
            response = new StoredResponse(code, headers, body);
        }
        List<String> priors = List.of();
        if ((first & PRIORS) != 0) {
            int n = (int) getVarlong(in);
            if (n < 0 || n > in.remaining()) {
                throw new IllegalStateException(n + " priors with " + in.remaining() + " bytes left");
            }
            String[] ids = new String[n];
            for (int i = 0; i < n; i++) {
                ids[i] = getStr(in);
            }
            priors = List.of(ids);
        }
        return new IdempotencyRecord(state, owner, callId, fingerprint, lease, created, completed == 0 ? null
                : Instant.ofEpochMilli(completed - 1), expires, attempts, status, response, priors);
    }

    private static int maxStr(String s) {
        return 5 + 3 * s.length();
    }

    static boolean isHex(String s) {
        int n = s.length();
        if (n == 0 || (n & 1) != 0) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    static void putStr(ByteBuffer out, String s) {
        if (isHex(s)) {
            putVarlong(out, ((long) s.length() << 1) | 1);
            for (int i = 0; i < s.length(); i += 2) {
                out.put((byte) (Character.digit(s.charAt(i), 16) << 4 | Character.digit(s.charAt(i + 1), 16)));
            }
            return;
        }
        if (LogFormat.isAscii(s)) {
            putVarlong(out, (long) s.length() << 1);
            LogFormat.putAscii(out, s);
            return;
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        putVarlong(out, (long) b.length << 1);
        out.put(b);
    }

    static String getStr(ByteBuffer in) {
        long tag = getVarlong(in);
        int n = (int) (tag >>> 1);
        if (n < 0 || n > 2 * in.remaining() + 1) {
            throw new IllegalStateException("a string of " + n + " with " + in.remaining() + " bytes left");
        }
        byte[] b;
        if ((tag & 1) != 0) {
            b = new byte[n];
            for (int i = 0; i < n; i += 2) {
                int v = in.get() & 0xff;
                b[i] = HEX[v >>> 4];
                b[i + 1] = HEX[v & 15];
            }
            return new String(b, StandardCharsets.ISO_8859_1);
        }
        b = new byte[n];
        in.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    static void putVarlong(ByteBuffer out, long v) {
        while ((v & ~0x7FL) != 0) {
            out.put((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.put((byte) v);
    }

    static long getVarlong(ByteBuffer in) {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            byte b = in.get();
            v |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                return v;
            }
        }
        throw new IllegalStateException("bad varint in log");
    }
}
