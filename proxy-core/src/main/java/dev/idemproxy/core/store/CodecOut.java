package dev.idemproxy.core.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A growing array written big-endian: what {@code DataOutputStream} over a
 * {@code ByteArrayOutputStream} wrote, without a stream and a lock per field: what
 * {@link StoreCodec} encodes into (one per thread, reused). Not thread-safe.
 */
final class CodecOut {
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /** The largest buffer kept for the next value ({@link #trim}). */
    static final int KEPT = 64 * 1024;
    private static final int INITIAL = 1024;

    private byte[] buf = new byte[INITIAL];
    private int size;

    void reset() {
        size = 0;
    }

    /** Drops a buffer grown past {@link #KEPT}, so that one large value does not stay on the thread. */
    void trim() {
        if (buf.length > KEPT) {
            buf = new byte[INITIAL];
        }
        size = 0;
    }

    private void ensure(int more) {
        if (size + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
        }
    }

    void writeByte(int b) {
        ensure(1);
        buf[size++] = (byte) b;
    }

    void writeBoolean(boolean b) {
        writeByte(b ? 1 : 0);
    }

    void writeInt(int v) {
        ensure(Integer.BYTES);
        INT.set(buf, size, v);
        size += Integer.BYTES;
    }

    void writeLong(long v) {
        ensure(Long.BYTES);
        LONG.set(buf, size, v);
        size += Long.BYTES;
    }

    void write(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, buf, size, len);
        size += len;
    }

    /**
     * Writes an all-ASCII string as its length and its chars, one byte each (its UTF-8 bytes,
     * without encoding it into an array first); false, writing nothing, when it is not all ASCII.
     */
    boolean writeAscii(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        writeInt(n);
        ensure(n);
        for (int i = 0; i < n; i++) {
            buf[size++] = (byte) s.charAt(i);
        }
        return true;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }
}
