package dev.idemproxy.core.util;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A growing array written big-endian: what {@code DataOutputStream} over a
 * {@code ByteArrayOutputStream} wrote, without a stream and a lock per field. The stores' codec
 * ({@code StoreCodec}) and the receipts' heads ({@code CallHeads}) encode into one per thread,
 * reused: {@link #take} it, copy the result out ({@link #toByteArray}), {@link #give} it back.
 * Not thread-safe.
 */
public final class ByteOut {
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final int initial;
    /** A buffer grown past this is not kept for the next value ({@link #give}). */
    private final int kept;
    private byte[] buf;
    private int size;
    private boolean busy;

    /** A buffer of {@code initial} bytes that keeps, between values, at most {@code kept}. */
    public ByteOut(int initial, int kept) {
        this.initial = initial;
        this.kept = kept;
        this.buf = new byte[initial];
    }

    /** This buffer emptied, or a new one while it is in use (an encoding nested in another on the same thread). */
    public ByteOut take() {
        if (busy) {
            return new ByteOut(512, kept);
        }
        busy = true;
        size = 0;
        return this;
    }

    /** Done with the buffer taken; one grown past its {@code kept} is dropped, so that one large value does not stay on the thread. */
    public void give() {
        busy = false;
        if (buf.length > kept) {
            buf = new byte[initial];
        }
        size = 0;
    }

    /** The bytes written so far. */
    public int size() {
        return size;
    }

    private void ensure(int more) {
        if (size + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
        }
    }

    public void writeByte(int b) {
        ensure(1);
        buf[size++] = (byte) b;
    }

    public void writeBoolean(boolean b) {
        writeByte(b ? 1 : 0);
    }

    public void writeInt(int v) {
        ensure(Integer.BYTES);
        INT.set(buf, size, v);
        size += Integer.BYTES;
    }

    public void writeLong(long v) {
        ensure(Long.BYTES);
        LONG.set(buf, size, v);
        size += Long.BYTES;
    }

    public void write(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, buf, size, len);
        size += len;
    }

    /** Room for an int written later ({@link #patchInt}); its position. */
    public int reserveInt() {
        ensure(Integer.BYTES);
        size += Integer.BYTES;
        return size - Integer.BYTES;
    }

    /** Writes {@code v} at {@code at}, a position {@link #reserveInt} returned. */
    public void patchInt(int at, int v) {
        INT.set(buf, at, v);
    }

    /**
     * Writes an all-ASCII string as its length and its chars, one byte each (its UTF-8 bytes,
     * without encoding it into an array first); false, writing nothing, when it is not all ASCII.
     */
    public boolean writeAscii(String s) {
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

    /**
     * Writes the first {@code end} characters of {@code s} as UTF-8, straight from the characters
     * (no length before them); a lone surrogate as {@code ?}, as {@code String.getBytes(UTF_8)} does.
     */
    public void writeUtf8(CharSequence s, int end) {
        ensure(end * 3);
        for (int i = 0; i < end; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                buf[size++] = (byte) c;
            } else if (c < 0x800) {
                buf[size++] = (byte) (0xC0 | (c >> 6));
                buf[size++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < end && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                buf[size++] = (byte) (0xF0 | (cp >> 18));
                buf[size++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                buf[size++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                buf[size++] = (byte) (0x80 | (cp & 0x3F));
            } else if (Character.isSurrogate(c)) {
                buf[size++] = '?';
            } else {
                buf[size++] = (byte) (0xE0 | (c >> 12));
                buf[size++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                buf[size++] = (byte) (0x80 | (c & 0x3F));
            }
        }
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }
}
