package dev.idemproxy.core.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * The one way tests wait: for a condition, bounded by a timeout that only guards against a hang
 * (a test never waits for it to pass), re-checked every few milliseconds; or, for what must not
 * happen, a condition that holds for a whole period. Nothing here guesses how long something takes.
 */
public final class Await {
    private static final long POLL_NANOS = 5_000_000L;

    private Await() {}

    /** Waits until {@code condition} is true; fails with {@code what} after {@code timeout}. */
    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        long end = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /** As {@link #until}, with a 10-second guard. */
    public static void until(String what, BooleanSupplier condition) {
        until(what, Duration.ofSeconds(10), condition);
    }

    /** Reads {@code value} until {@code done} accepts it, and returns it; fails after {@code timeout}. */
    public static <T> T value(String what, Duration timeout, Checked<T> value, Predicate<T> done) {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            T v;
            try {
                v = value.get();
            } catch (Exception e) {
                throw new AssertionError("reading " + what + " failed", e);
            }
            if (done.test(v)) {
                return v;
            }
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what + "; last seen: " + v);
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /**
     * Checks that {@code condition} stays true for all of {@code period}: how a test says that
     * something does not happen (a file change that must not trigger a reload, a write that must
     * not land). Fails as soon as it is false.
     */
    public static void holdsFor(String what, Duration period, BooleanSupplier condition) {
        long end = System.nanoTime() + period.toNanos();
        do {
            if (!condition.getAsBoolean()) {
                throw new AssertionError("no longer true: " + what);
            }
            LockSupport.parkNanos(POLL_NANOS);
        } while (System.nanoTime() - end < 0);
        if (!condition.getAsBoolean()) {
            throw new AssertionError("no longer true: " + what);
        }
    }

    /**
     * Lets {@code d} of real time pass, for the few clocks no test can move: Redis keeps leases and
     * expiries by its own clock, and a lease or window must really lapse there.
     */
    public static void realTime(Duration d) {
        long end = System.nanoTime() + d.toNanos();
        for (long left = d.toNanos(); left > 0; left = end - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    /** A supplier that may throw. */
    @FunctionalInterface
    public interface Checked<T> {
        T get() throws Exception;
    }
}
