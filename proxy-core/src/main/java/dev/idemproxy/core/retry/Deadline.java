package dev.idemproxy.core.retry;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.util.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The effective deadline of one call (docs/http-reference.md, docs/idempotency.md): the earliest of the route's
 * {@code timeouts.total} from the start of the call and the caller's own deadline, given as
 * {@code X-Request-Timeout-Ms} (milliseconds from now) or {@code X-Request-Deadline} (epoch
 * milliseconds); when both are sent the earlier wins.
 *
 * <p>An invalid caller value (not 1 to 18 decimal digits after trimming) is ignored and the
 * route's {@code total} applies alone: a malformed hint should not fail a call that the route
 * bounds anyway, and the caller who sent it still gets an answer within {@code total}. A valid
 * value that is already past ({@code 0}, or an epoch in the past) makes the deadline expired at
 * once: the call starts no attempt and answers 504 {@code deadline-exceeded}.
 *
 * <p>Time is read from an injected {@link Ticker}; the wall clock is read once, to convert
 * {@code X-Request-Deadline}. This class is immutable and thread-safe.
 */
public final class Deadline {
    private static final Pattern MILLIS = Pattern.compile("\\d{1,18}");
    /** Keeps {@code start + budget} far from overflow; ~73 years. */
    private static final long MAX_NANOS = Long.MAX_VALUE / 4;

    private final Ticker ticker;
    private final long deadlineNanos;
    private final boolean fromCaller;

    private Deadline(Ticker ticker, long deadlineNanos, boolean fromCaller) {
        this.ticker = ticker;
        this.deadlineNanos = deadlineNanos;
        this.fromCaller = fromCaller;
    }

    /**
     * The deadline of a call starting now.
     *
     * @param total          the route's {@code timeouts.total}
     * @param timeoutMs      the caller's {@code X-Request-Timeout-Ms}, or null
     * @param deadlineEpochMs the caller's {@code X-Request-Deadline}, or null
     */
    public static Deadline of(Duration total, String timeoutMs, String deadlineEpochMs, Ticker ticker, Clock clock) {
        requireNonNull(total, "total");
        requireNonNull(ticker, "ticker");
        requireNonNull(clock, "clock");
        long now = ticker.nanos();
        long budget = clamp(Backoff.nanos(total));
        boolean fromCaller = false;
        long relative = parseMillis(timeoutMs);
        if (relative >= 0 && millisToNanos(relative) < budget) {
            budget = millisToNanos(relative);
            fromCaller = true;
        }
        long epoch = parseMillis(deadlineEpochMs);
        if (epoch >= 0) {
            long left = Math.max(0, epoch - clock.millis());
            if (millisToNanos(left) < budget) {
                budget = millisToNanos(left);
                fromCaller = true;
            }
        }
        return new Deadline(ticker, now + budget, fromCaller);
    }

    /** A deadline {@code budget} from now; handy in tests and for calls without caller headers. */
    public static Deadline after(Duration budget, Ticker ticker) {
        requireNonNull(ticker, "ticker");
        return new Deadline(ticker, ticker.nanos() + clamp(Backoff.nanos(requireNonNull(budget, "budget"))), false);
    }

    /** Time left, never negative. */
    public Duration remaining() {
        return Duration.ofNanos(Math.max(0, deadlineNanos - ticker.nanos()));
    }

    /** Whole milliseconds left, for the {@code X-Request-Timeout-Ms} header sent upstream. */
    public long remainingMillis() {
        return remaining().toMillis();
    }

    /** True once no time is left; no attempt may start then. */
    public boolean expired() {
        return deadlineNanos - ticker.nanos() <= 0;
    }

    /** The timeout of an attempt starting now: min(perTry, time left). */
    public Duration attemptTimeout(Duration perTry) {
        Duration left = remaining();
        return requireNonNull(perTry, "perTry").compareTo(left) < 0 ? perTry : left;
    }

    /** True when an attempt could still start after waiting {@code wait}: wait < time left. */
    public boolean fits(Duration wait) {
        return Backoff.nanos(requireNonNull(wait, "wait")) < deadlineNanos - ticker.nanos();
    }

    /** True when the caller's header, not the route's {@code total}, set this deadline. */
    public boolean fromCaller() {
        return fromCaller;
    }

    @Override
    public String toString() {
        return "Deadline[remaining=" + remaining() + (fromCaller ? ", caller" : ", route") + "]";
    }

    /** Milliseconds in a header value, or −1 when absent or invalid. */
    static long parseMillis(String value) {
        if (value == null) {
            return -1;
        }
        String v = value.strip();
        return MILLIS.matcher(v).matches() ? Long.parseLong(v) : -1;
    }

    private static long millisToNanos(long millis) {
        return millis > MAX_NANOS / 1_000_000L ? MAX_NANOS : millis * 1_000_000L;
    }

    private static long clamp(long nanos) {
        return nanos < 0 || nanos > MAX_NANOS ? MAX_NANOS : nanos;
    }
}
