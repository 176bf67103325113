package dev.idemproxy.core.retry;

import static dev.idemproxy.core.util.Checks.requireArgument;

/**
 * How a backoff delay is randomised: {@code full} (uniform in [0, d]), {@code equal}
 * (d/2 + uniform in [0, d/2]), {@code none}, or a fraction f (d ± f·d). This class is immutable.
 */
public record Jitter(Kind kind, double fraction) {
    public enum Kind { FULL, EQUAL, NONE, FRACTION }

    public static final Jitter FULL = new Jitter(Kind.FULL, 1.0);

    public Jitter {
        requireArgument(fraction >= 0.0 && fraction <= 1.0, "jitter " + fraction + " (expected: full, equal, none or 0.0..1.0)");
    }

    /** Parses {@code full}, {@code equal}, {@code none} or a fraction such as {@code 0.2}. */
    public static Jitter parse(String text) {
        switch (text) {
            case "full": return FULL;
            case "equal": return new Jitter(Kind.EQUAL, 0.5);
            case "none": return new Jitter(Kind.NONE, 0.0);
            default:
                double f;
                try {
                    f = Double.parseDouble(text);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("jitter '" + text + "' (expected: full, equal, none or 0.0..1.0)");
                }
                return new Jitter(Kind.FRACTION, f);
        }
    }

    @Override
    public String toString() {
        return kind == Kind.FRACTION ? Double.toString(fraction) : kind.name().toLowerCase(java.util.Locale.ROOT);
    }
}
