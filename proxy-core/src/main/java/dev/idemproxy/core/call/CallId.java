package dev.idemproxy.core.call;

import java.time.Clock;
import java.util.random.RandomGenerator;

/**
 * Call ids: 32 lower-case hex digits, the first 12 the epoch milliseconds of the call's start and
 * the other 20 random (80 bits). Ids made later sort later (to the millisecond), so stores that
 * keep receipts in a B-tree by call id (the embedded store) append them at one end instead of
 * rewriting a random page for every call; 80 random bits keep ids made in the same millisecond
 * apart.
 *
 * <p>{@link #owner} makes the owner token of one execution of a call (its claim of the
 * idempotency record): the call id, a dot and 16 random hex digits (64 bits). A DLQ replay runs
 * the same call id again, so the call id alone cannot tell its claim from the original's, whose
 * end or renewal may still be on its way; records written before owner tokens had a suffix have
 * the bare call id as owner. The clock and the randomness are the caller's (the proxy's injected
 * ones). This class is stateless.
 */
public final class CallId {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private CallId() {}

    /** A new call id, led by {@code clock}'s milliseconds. */
    public static String next(Clock clock, RandomGenerator random) {
        return of(clock.millis(), random);
    }

    /** A fresh owner token for an execution of call {@code callId}: {@code <callId>.<16 hex digits>}. */
    public static String owner(String callId, RandomGenerator random) {
        long r = random.nextLong();
        char[] out = new char[16];
        for (int i = 0; i < 16; i++) {
            out[i] = HEX[(int) (r >>> (60 - 4 * i)) & 0xf];
        }
        return callId + '.' + new String(out);
    }

    static String of(long millis, RandomGenerator random) {
        char[] out = new char[32];
        long hi = (millis << 16) | (random.nextInt() & 0xFFFFL);  // 48 bits of time, then 16 random bits
        long lo = random.nextLong();                              // 64 more random bits
        for (int i = 0; i < 16; i++) {
            out[i] = HEX[(int) (hi >>> (60 - 4 * i)) & 0xf];
            out[16 + i] = HEX[(int) (lo >>> (60 - 4 * i)) & 0xf];
        }
        return new String(out);
    }
}
