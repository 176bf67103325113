package dev.idemproxy.core.call;

import java.util.concurrent.ThreadLocalRandom;

/** Call ids: 128 random bits as 32 lower-case hex digits. This class is stateless. */
public final class CallId {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private CallId() {}

    public static String next() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        char[] out = new char[32];
        long hi = r.nextLong();
        long lo = r.nextLong();
        for (int i = 0; i < 16; i++) {
            out[i] = HEX[(int) (hi >>> (60 - 4 * i)) & 0xf];
            out[16 + i] = HEX[(int) (lo >>> (60 - 4 * i)) & 0xf];
        }
        return new String(out);
    }
}
