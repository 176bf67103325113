package dev.idemproxy.core.call;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

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
    private static final byte[] HEX = "0123456789abcdef".getBytes(ISO_8859_1);

    private CallId() {}

    /** A new call id, led by {@code clock}'s milliseconds. */
    public static String next(Clock clock, RandomGenerator random) {
        return of(clock.millis(), random);
    }

    /** A fresh owner token for an execution of call {@code callId}: {@code <callId>.<16 hex digits>}. */
    public static String owner(String callId, RandomGenerator random) {
        long r = random.nextLong();
        int n = callId.length();
        // One byte array for the whole token, made a string once (a Latin-1 one, as the ids are).
        byte[] out = new byte[n + 17];
        for (int i = 0; i < n; i++) {
            char c = callId.charAt(i);
            if (c > 0xFF) {
                return callId + '.' + new String(hex(r, new byte[16], 0), ISO_8859_1);  // not ours: kept as it is
            }
            out[i] = (byte) c;
        }
        out[n] = '.';
        return new String(hex(r, out, n + 1), ISO_8859_1);
    }

    static String of(long millis, RandomGenerator random) {
        byte[] out = new byte[32];
        long hi = (millis << 16) | (random.nextInt() & 0xFFFFL);  // 48 bits of time, then 16 random bits
        long lo = random.nextLong();                              // 64 more random bits
        hex(hi, out, 0);
        hex(lo, out, 16);
        return new String(out, ISO_8859_1);
    }

    /** Writes {@code v} as 16 lower-case hex digits into {@code out} from {@code at}; returns {@code out}. */
    private static byte[] hex(long v, byte[] out, int at) {
        for (int i = 0; i < 16; i++) {
            out[at + i] = HEX[(int) (v >>> (60 - 4 * i)) & 0xf];
        }
        return out;
    }
}
