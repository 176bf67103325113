package dev.idemproxy.core.util;

/**
 * A monotonic time source in nanoseconds, the seam that lets tests advance time by hand
 * (Caffeine's {@code Ticker}). Only differences between two readings mean anything. For
 * wall-clock instants (epoch milliseconds, HTTP dates) use {@link java.time.Clock}.
 * Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Ticker {
    /** Nanoseconds since an arbitrary origin; never decreases. */
    long nanos();

    /** The JVM's {@link System#nanoTime()}. */
    static Ticker system() {
        return System::nanoTime;
    }
}
