package dev.idemproxy.core.util;

import java.time.Duration;

/** Argument checks for config records; messages follow the {@code (expected: …)} style. */
public final class Checks {
    private Checks() {}

    public static void requireArgument(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    /**
     * True when {@code s} is exactly {@code length} lower-case hex digits. A loop, not a regex:
     * it runs on the hot path (every fingerprint and scope hash), where compiling a pattern per
     * call cost more than hashing a small request.
     */
    public static boolean isLowerHex(String s, int length) {
        if (s == null || s.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
                return false;
            }
        }
        return true;
    }

    // The two below run for records made per call (a receipt's ttl, a retry's delay): the message
    // is built only when the check fails.

    public static Duration positive(Duration d, String name) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + ": " + d + " (expected: > 0)");
        }
        return d;
    }

    public static Duration nonNegative(Duration d, String name) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException(name + ": " + d + " (expected: >= 0)");
        }
        return d;
    }
}
