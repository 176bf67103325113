package dev.idemproxy.core.testing;

import java.io.InputStream;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

/** Deterministic pseudo-random upload bodies of any size, generated on the fly. Not thread-safe. */
final class UploadData extends InputStream {

    private final SplittableRandom random;
    private long remaining;

    UploadData(long seed, long size) {
        this.random = new SplittableRandom(seed);
        this.remaining = size;
    }

    /** The CRC32 of the {@code size} bytes {@code new UploadData(seed, size)} yields. */
    static long crc32(long seed, long size) {
        CRC32 crc = new CRC32();
        byte[] buf = new byte[64 * 1024];
        try (UploadData data = new UploadData(seed, size)) {
            for (int n; (n = data.read(buf, 0, buf.length)) != -1; ) {
                crc.update(buf, 0, n);
            }
        }
        return crc.getValue();
    }

    @Override
    public int read() {
        byte[] one = new byte[1];
        return read(one, 0, 1) == -1 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        if (remaining == 0) {
            return -1;
        }
        int n = (int) Math.min(len, remaining);
        for (int i = 0; i < n; i++) {
            b[off + i] = (byte) random.nextInt(256);
        }
        remaining -= n;
        return n;
    }

    @Override
    public void close() {
    }
}
