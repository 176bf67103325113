package dev.idemproxy.app.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and prints config durations: one or more {@code <digits><unit>} groups, unit one of
 * {@code ms s m h d}, e.g. {@code 250ms}, {@code 10s}, {@code 5m}, {@code 24h}, {@code 1h30m}.
 * This class is stateless.
 */
public final class DurationParser {
    static final String EXAMPLES = "250ms, 10s, 5m, 24h";

    private static final Pattern WHOLE = Pattern.compile("(?:[0-9]+(?:ms|s|m|h|d))+");
    private static final Pattern GROUP = Pattern.compile("([0-9]+)(ms|s|m|h|d)");

    private DurationParser() {}

    /** Parses {@code text}; throws {@link IllegalArgumentException} saying what was expected. */
    public static Duration parse(String text) {
        String t = text.trim();
        if (!WHOLE.matcher(t).matches()) {
            throw new IllegalArgumentException(expected(text));
        }
        Matcher m = GROUP.matcher(t);
        Duration total = Duration.ZERO;
        try {
            while (m.find()) {
                long n = Long.parseLong(m.group(1));
                total = total.plus(unit(n, m.group(2)));
            }
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is too long (expected: a duration such as " + EXAMPLES + ")");
        }
        return total;
    }

    /** Prints {@code d} in the shortest config spelling, e.g. {@code 1m30s}, {@code 200ms}, {@code 0s}. */
    public static String format(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        if (d.isNegative()) {
            return "-" + format(d.negated());
        }
        StringBuilder sb = new StringBuilder();
        append(sb, d.toDaysPart(), "d");
        append(sb, d.toHoursPart(), "h");
        append(sb, d.toMinutesPart(), "m");
        append(sb, d.toSecondsPart(), "s");
        append(sb, d.toMillisPart(), "ms");
        return sb.length() == 0 ? d.toNanos() + "ns" : sb.toString();
    }

    static String expected(String text) {
        return "expected a duration such as " + EXAMPLES + ", got '" + text + "'";
    }

    private static Duration unit(long n, String unit) {
        switch (unit) {
            case "ms": return Duration.ofMillis(n);
            case "s": return Duration.ofSeconds(n);
            case "m": return Duration.ofMinutes(n);
            case "h": return Duration.ofHours(n);
            default: return Duration.ofDays(n);
        }
    }

    private static void append(StringBuilder sb, long n, String unit) {
        if (n != 0) {
            sb.append(n).append(unit);
        }
    }
}
