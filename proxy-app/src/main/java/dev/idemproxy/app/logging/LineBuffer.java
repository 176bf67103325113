package dev.idemproxy.app.logging;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The bytes of a batch of log lines, reused from batch to batch by the log writer: text goes in
 * as UTF-8 without a {@code String} or {@code byte[]} made for it on the way (log lines are
 * ASCII but for what callers put in messages). Not thread-safe: the writer's alone.
 */
final class LineBuffer {
    /** A buffer grown past this (a batch of stack traces) goes back to its first size when reset. */
    private static final int KEPT_CAPACITY = 1 << 20;

    private final int capacity;
    private byte[] bytes;
    private int size;

    LineBuffer(int capacity) {
        this.capacity = capacity;
        bytes = new byte[capacity];
    }

    int size() {
        return size;
    }

    void reset() {
        size = 0;
        if (bytes.length > Math.max(capacity, KEPT_CAPACITY)) {
            bytes = new byte[capacity];
        }
    }

    /** Drops what was appended after the first {@code length} bytes (a line that failed midway). */
    void truncate(int length) {
        size = Math.min(size, length);
    }

    void append(byte[] b) {
        ensure(b.length);
        System.arraycopy(b, 0, bytes, size, b.length);
        size += b.length;
    }

    void append(char c) {
        if (c >= 0x80) {
            append(String.valueOf(c));
            return;
        }
        ensure(1);
        bytes[size++] = (byte) c;
    }

    void append(CharSequence s) {
        append(s, 0, s.length());
    }

    /** Appends {@code s[from, to)} as UTF-8. */
    void append(CharSequence s, int from, int to) {
        ensure(to - from);
        byte[] b = bytes;
        int n = size;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                size = n;
                append(s.subSequence(i, to).toString().getBytes(StandardCharsets.UTF_8));
                return;
            }
            b[n++] = (byte) c;
        }
        size = n;
    }

    /** Writes the bytes with one call; a {@link PrintStream} passes a large array straight to its file. */
    void writeTo(OutputStream out) throws java.io.IOException {
        out.write(bytes, 0, size);
    }

    byte[] toByteArray() {
        return Arrays.copyOf(bytes, size);
    }

    private void ensure(int more) {
        if (bytes.length - size < more) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
    }
}
