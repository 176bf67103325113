package dev.idemproxy.core;

import java.time.Duration;

/** Argument checks for config records; messages follow the {@code (expected: …)} style. */
public final class Checks {
    private Checks() {}

    public static void requireArgument(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    public static Duration positive(Duration d, String name) {
        requireArgument(d != null && !d.isNegative() && !d.isZero(), name + ": " + d + " (expected: > 0)");
        return d;
    }

    public static Duration nonNegative(Duration d, String name) {
        requireArgument(d != null && !d.isNegative(), name + ": " + d + " (expected: >= 0)");
        return d;
    }
}
