package dev.idemproxy.app.config;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and prints config sizes in bytes: plain {@code 1024}, or a number with a binary unit,
 * {@code B KiB MiB GiB}, e.g. {@code 512KiB}, {@code 4MiB}. This class is stateless.
 */
public final class SizeParser {
    static final String EXAMPLES = "1024, 512KiB, 4MiB, 1GiB";

    private static final Pattern SIZE = Pattern.compile("([0-9]+) ?(B|KiB|MiB|GiB)?");
    private static final long KIB = 1024;

    private SizeParser() {}

    /** Parses {@code text}; throws {@link IllegalArgumentException} saying what was expected. */
    public static long parse(String text) {
        Matcher m = SIZE.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException(expected(text));
        }
        try {
            return Math.multiplyExact(Long.parseLong(m.group(1)), multiplier(m.group(2)));
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is too large (expected: a size such as " + EXAMPLES + ")");
        }
    }

    /** Prints {@code bytes} with the largest binary unit that divides it exactly, e.g. {@code 4MiB}, {@code 1000}. */
    public static String format(long bytes) {
        if (bytes != 0 && bytes % (KIB * KIB * KIB) == 0) {
            return bytes / (KIB * KIB * KIB) + "GiB";
        }
        if (bytes != 0 && bytes % (KIB * KIB) == 0) {
            return bytes / (KIB * KIB) + "MiB";
        }
        if (bytes != 0 && bytes % KIB == 0) {
            return bytes / KIB + "KiB";
        }
        return Long.toString(bytes);
    }

    static String expected(String text) {
        return "expected a size such as " + EXAMPLES + ", got '" + text + "'";
    }

    private static long multiplier(String unit) {
        if (unit == null || unit.equals("B")) {
            return 1;
        }
        switch (unit) {
            case "KiB": return KIB;
            case "MiB": return KIB * KIB;
            default: return KIB * KIB * KIB;
        }
    }
}
