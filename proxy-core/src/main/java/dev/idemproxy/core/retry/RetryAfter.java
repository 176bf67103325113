package dev.idemproxy.core.retry;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses a {@code Retry-After} value (RFC 9110 §10.2.3) into the wait it asks for, relative to an
 * injected clock. Accepts delta-seconds and the three HTTP-date forms of RFC 9110 §5.6.7:
 * IMF-fixdate ({@code Sun, 06 Nov 1994 08:49:37 GMT}), obsolete RFC 850
 * ({@code Sunday, 06-Nov-94 08:49:37 GMT}) and asctime ({@code Sun Nov  6 08:49:37 1994}).
 * A date in the past gives zero; anything else (negative numbers, fractions, unknown forms,
 * impossible dates) gives empty. Delta-seconds beyond 2^31 saturate at 2^31 (RFC 9111 §1.2.2).
 * This class is stateless and thread-safe.
 */
public final class RetryAfter {
    static final long MAX_DELTA_SECONDS = 2_147_483_648L;

    private static final List<String> MONTHS =
            List.of("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec");
    private static final String DAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
    private static final String DAY_LONG = "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
    private static final String MONTH = "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
    private static final String TIME = "(\\d{2}):(\\d{2}):(\\d{2})";
    private static final Pattern DELTA = Pattern.compile("\\d+");
    private static final Pattern IMF = Pattern.compile(DAY + ", (\\d{2}) " + MONTH + " (\\d{4}) " + TIME + " GMT");
    private static final Pattern RFC850 = Pattern.compile(DAY_LONG + ", (\\d{2})-" + MONTH + "-(\\d{2}) " + TIME + " GMT");
    private static final Pattern ASCTIME = Pattern.compile(DAY + " " + MONTH + " ([ \\d]\\d) " + TIME + " (\\d{4})");

    private RetryAfter() {}

    /** The wait {@code value} asks for, or empty when it is absent or not a valid Retry-After. */
    public static Optional<Duration> parse(String value, Clock clock) {
        if (value == null) {
            return Optional.empty();
        }
        String v = value.strip();
        if (DELTA.matcher(v).matches()) {
            return Optional.of(Duration.ofSeconds(v.length() > 10 ? MAX_DELTA_SECONDS
                    : Math.min(Long.parseLong(v), MAX_DELTA_SECONDS)));
        }
        return httpDate(v, clock).map(at -> {
            Duration d = Duration.ofMillis(at - clock.millis());
            return d.isNegative() ? Duration.ZERO : d;
        });
    }

    /** Epoch milliseconds of an HTTP-date in any of its three forms. */
    static Optional<Long> httpDate(String v, Clock clock) {
        Matcher m = IMF.matcher(v);
        if (m.matches()) {
            return epochMillis(Integer.parseInt(m.group(3)), m.group(2), m.group(1), m, 4);
        }
        m = RFC850.matcher(v);
        if (m.matches()) {
            return epochMillis(fullYear(Integer.parseInt(m.group(3)), clock), m.group(2), m.group(1), m, 4);
        }
        m = ASCTIME.matcher(v);
        if (m.matches()) {
            return epochMillis(Integer.parseInt(m.group(6)), m.group(1), m.group(2).strip(), m, 3);
        }
        return Optional.empty();
    }

    /**
     * RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is the most recent
     * past year with the same last two digits.
     */
    static int fullYear(int yy, Clock clock) {
        int now = LocalDateTime.now(clock.withZone(ZoneOffset.UTC)).getYear();
        int year = now - Math.floorMod(now, 100) + yy;
        if (year > now + 50) {
            return year - 100;
        }
        return year + 100 <= now + 50 ? year + 100 : year;
    }

    private static Optional<Long> epochMillis(int year, String month, String day, Matcher m, int timeGroup) {
        try {
            LocalDateTime t = LocalDateTime.of(year, MONTHS.indexOf(month) + 1, Integer.parseInt(day),
                    Integer.parseInt(m.group(timeGroup)), Integer.parseInt(m.group(timeGroup + 1)),
                    Integer.parseInt(m.group(timeGroup + 2)));
            return Optional.of(t.toInstant(ZoneOffset.UTC).toEpochMilli());
        } catch (DateTimeException e) {
            return Optional.empty();
        }
    }
}
