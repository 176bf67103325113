package dev.idemproxy.core.util;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets a per-call log line through at most once per period, counting the ones held back, so a
 * store outage at a thousand calls a second costs a line every few seconds instead of a thousand
 * (the calls' own log lines and the store error counters still say what happened to each).
 * This class is thread-safe and lock-free.
 */
public final class LogThrottle {
    private final long periodNanos;
    private final Ticker ticker;
    /** When the last line was let through; {@code Long.MIN_VALUE} before the first. */
    private final AtomicLong lastNanos = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong held = new AtomicLong();

    public LogThrottle(Duration period, Ticker ticker) {
        this.periodNanos = Checks.positive(period, "period").toNanos();
        this.ticker = java.util.Objects.requireNonNull(ticker, "ticker");
    }

    /** One line per {@code period}, on the system clock. */
    public static LogThrottle every(Duration period) {
        return new LogThrottle(period, Ticker.system());
    }

    /**
     * Whether this line may be logged: -1 when it is held back (and counted), else how many lines
     * were held back since the last one let through (0 for none), which the line should say.
     */
    public long pass() {
        return pass(ticker.nanos());
    }

    /** As {@link #pass()}, at {@code now} (nanoseconds on this throttle's ticker's scale). */
    public long pass(long now) {
        long last = lastNanos.get();
        if ((last == Long.MIN_VALUE || now - last >= periodNanos) && lastNanos.compareAndSet(last, now)) {
            return held.getAndSet(0);
        }
        held.incrementAndGet();
        return -1;
    }

    /** " (and N more like it since the last)" for a count from {@link #pass}, or "" for 0. */
    public static String more(long heldBack) {
        return heldBack > 0 ? " (and " + heldBack + " more like it since the last)" : "";
    }
}
