package dev.idemproxy.core.store.embedded;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The embedded log's format, version {@value #VERSION}. A segment is an 8-byte header
 * ({@code "IPLG"}, int32 version) and then frames, each starting at a multiple of 8:
 * <pre>
 *   frame   := int32 payload length , int32 CRC-32C of the payload , payload , zero padding to 8
 *   payload := part+
 *   part    := 1 record  : string id , int64 expiresAt ms , int32 length , record ({@link RecordCodec})
 *            | 2 receipt : string callId , nstring bizId , int64 expiresAt ms , int64 createdAt ms , bytes receipt (StoreCodec)
 *            | 3 record deleted      : string id
 *            | 4 dead letter         : string id , string sortKey , bytes entry (StoreCodec)
 *            | 5 dead letter deleted : string id
 *            | 6 task counter        : string windowKey , int64 count , int64 expiresAt ms
 *   string  := varint length , UTF-8 ;  nstring := varint (length + 1, 0 = null) , UTF-8 ;  bytes := varint length , bytes
 * </pre>
 * Integers are big-endian. A frame is written whole or not at all as far as readers go: a frame
 * whose length runs past the segment or whose CRC does not match ends the segment (a torn write),
 * and recovery cuts it there. A record and its receipt written together share one frame. A new
 * part kind or field means a new version; a reader refuses a version it does not know. Stateless.
 */
final class LogFormat {
    static final int MAGIC = 0x49504C47;  // "IPLG"
    static final int VERSION = 1;
    static final int HEADER_BYTES = 8;
    static final int FRAME_HEADER_BYTES = 8;

    static final byte RECORD = 1;
    static final byte RECEIPT = 2;
    static final byte RECORD_DELETED = 3;
    static final byte DEAD_LETTER = 4;
    static final byte DEAD_LETTER_DELETED = 5;
    static final byte TASK = 6;

    private LogFormat() {
    }

    static int padded(int n) {
        return (n + 7) & ~7;
    }

    static void writeSegmentHeader(ByteBuffer out) {
        out.putInt(MAGIC).putInt(VERSION);
    }

    /** Whether {@code header} (8 bytes) is a segment header this version reads; throws on another version. */
    static void checkSegmentHeader(ByteBuffer header, long segment) {
        int magic = header.getInt(0);
        int version = header.getInt(4);
        if (magic != MAGIC) {
            throw new IllegalStateException("segment " + DirectoryLogFiles.name(segment) + " is not an idemproxy log");
        }
        if (version != VERSION) {
            throw new IllegalStateException("segment " + DirectoryLogFiles.name(segment) + " has log format version " + version
                    + " (this idemproxy reads version " + VERSION + ")");
        }
    }

    static int crc(ByteBuffer buf, int from, int to) {
        return crc(new CRC32C(), buf, from, to);
    }

    /** The CRC-32C of {@code buf[from, to)} with {@code c} (reset first); the buffer's position and limit are left as they were. */
    static int crc(CRC32C c, ByteBuffer buf, int from, int to) {
        c.reset();
        int position = buf.position();
        int limit = buf.limit();
        buf.limit(to).position(from);
        c.update(buf);
        buf.limit(limit).position(position);
        return (int) c.getValue();
    }

    // ---------------------------------------------------------------- writing

    static void putVarint(ByteBuffer out, int v) {
        while ((v & ~0x7F) != 0) {
            out.put((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.put((byte) v);
    }

    static void putString(ByteBuffer out, String s) {
        if (isAscii(s)) {  // most names are: written char by char, without an array
            putVarint(out, s.length());
            putAscii(out, s);
            return;
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        putVarint(out, b.length);
        out.put(b);
    }

    static boolean isAscii(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    /** Writes an all-ASCII string's chars, one byte each (its UTF-8). */
    static void putAscii(ByteBuffer out, String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            out.put((byte) s.charAt(i));
        }
    }

    static void putNullableString(ByteBuffer out, String s) {
        if (s == null) {
            putVarint(out, 0);
            return;
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        putVarint(out, b.length + 1);
        out.put(b);
    }

    static void putBytes(ByteBuffer out, byte[] b) {
        putVarint(out, b.length);
        out.put(b);
    }

    /** An upper bound of what {@link #putString} writes. */
    static int maxString(String s) {
        return 5 + s.length() * 3;
    }

    // ---------------------------------------------------------------- reading

    static int getVarint(ByteBuffer in) {
        int v = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            byte b = in.get();
            v |= (b & 0x7F) << shift;
            if (b >= 0) {
                if (v < 0) {
                    throw new IllegalStateException("negative length in log");
                }
                return v;
            }
        }
        throw new IllegalStateException("bad varint in log");
    }

    static String getString(ByteBuffer in) {
        return utf8(in, getVarint(in));
    }

    static String getNullableString(ByteBuffer in) {
        int n = getVarint(in);
        return n == 0 ? null : utf8(in, n - 1);
    }

    static byte[] getBytes(ByteBuffer in) {
        int n = getVarint(in);
        if (n > in.remaining()) {
            throw new IllegalStateException("a length of " + n + " with " + in.remaining() + " bytes left");
        }
        byte[] b = new byte[n];
        in.get(b);
        return b;
    }

    static void skipBytes(ByteBuffer in) {
        int n = getVarint(in);
        in.position(in.position() + n);
    }

    /** Whether the string at the buffer's position equals {@code s}; the position moves past it either way. */
    static boolean stringEquals(ByteBuffer in, String s) {
        int n = getVarint(in);
        int at = in.position();
        in.position(at + n);
        if (n != s.length()) {  // every name the store compares is ASCII in practice; a longer UTF-8 one is compared below
            return n >= s.length() && s.equals(utf8At(in, at, n));
        }
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                return s.equals(utf8At(in, at, n));
            }
            if (in.get(at + i) != (byte) c) {
                return false;
            }
        }
        return true;
    }

    private static String utf8(ByteBuffer in, int n) {
        String s = utf8At(in, in.position(), n);
        in.position(in.position() + n);
        return s;
    }

    private static String utf8At(ByteBuffer in, int at, int n) {
        if (in.hasArray()) {
            return new String(in.array(), in.arrayOffset() + at, n, StandardCharsets.UTF_8);
        }
        byte[] b = new byte[n];
        in.get(at, b);
        return new String(b, StandardCharsets.UTF_8);
    }

    /** Skips a record part's value (int32 length, then the value). */
    static void skipRecord(ByteBuffer in) {
        int n = in.getInt();
        in.position(in.position() + n);
    }

    /** Reads a record part's value (int32 length, then the value). */
    static dev.idemproxy.core.store.IdempotencyRecord getRecord(ByteBuffer in) {
        int n = in.getInt();
        ByteBuffer value = in.slice(in.position(), n);
        in.position(in.position() + n);
        return RecordCodec.read(value);
    }

    /** Skips one part's body of {@code kind} (the kind byte already read). */
    static void skipPart(ByteBuffer in, byte kind) {
        switch (kind) {
            case RECORD -> {
                skipBytes(in);
                in.getLong();
                skipRecord(in);
            }
            case RECEIPT -> {
                skipBytes(in);
                int n = getVarint(in);
                in.position(in.position() + Math.max(0, n - 1));
                in.getLong();
                in.getLong();
                skipBytes(in);
            }
            case RECORD_DELETED, DEAD_LETTER_DELETED -> skipBytes(in);
            case DEAD_LETTER -> {
                skipBytes(in);
                skipBytes(in);
                skipBytes(in);
            }
            case TASK -> {
                skipBytes(in);
                in.getLong();
                in.getLong();
            }
            default -> throw new IllegalStateException("unknown log part kind " + kind);
        }
    }
}
