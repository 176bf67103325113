package dev.idemproxy.core.retry;

import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * The wait before retry attempt n (n = the attempt about to start, 2..maxAttempts):
 * {@code base = min(initial × multiplier^(n−2), max)}, then jittered:
 * <ul>
 *   <li>{@code full}: uniform in [0, base)</li>
 *   <li>{@code equal}: base/2 + uniform in [0, base/2)</li>
 *   <li>{@code none}: base</li>
 *   <li>fraction f: base × (1 + uniform in [−f, f)), capped at max</li>
 * </ul>
 * The arithmetic is done in doubles and saturates at {@code max}, so a large n never overflows.
 * This class is immutable and thread-safe when its random source is (pass
 * {@link #threadLocalRandom()} in production, a seeded generator in tests).
 */
public final class Backoff {
    private final BackoffPolicy policy;
    private final RandomGenerator random;

    public Backoff(BackoffPolicy policy, RandomGenerator random) {
        this.policy = requireNonNull(policy, "policy");
        this.random = requireNonNull(random, "random");
    }

    /**
     * A thread-safe random source for jitter: every draw comes from the calling thread's
     * {@link ThreadLocalRandom}, asked for anew each time (an instance of it kept and used from
     * another thread would draw from that thread's uninitialised seed).
     */
    public static RandomGenerator threadLocalRandom() {
        return () -> ThreadLocalRandom.current().nextLong();
    }

    /** The jittered delay before attempt {@code attempt} (2 or more). */
    public Duration delayBefore(int attempt) {
        double base = baseNanos(policy, attempt);
        double max = nanos(policy.max());
        double d;
        switch (policy.jitter().kind()) {
            case FULL:
                d = random.nextDouble() * base;
                break;
            case EQUAL:
                d = base / 2 + random.nextDouble() * base / 2;
                break;
            case NONE:
                d = base;
                break;
            default:
                double f = policy.jitter().fraction();
                d = Math.min(max, base * (1 + (2 * random.nextDouble() - 1) * f));
                break;
        }
        return Duration.ofNanos((long) Math.max(0, d));
    }

    /**
     * The longest delay before {@code attempt} that the policy's jitter can give: the base for
     * {@code full}, {@code equal} and {@code none}; base × (1 + f), capped at max, for a fraction f.
     */
    public static Duration ceiling(BackoffPolicy policy, int attempt) {
        double base = baseNanos(policy, attempt);
        if (policy.jitter().kind() != Jitter.Kind.FRACTION) {
            return Duration.ofNanos((long) base);
        }
        return Duration.ofNanos((long) Math.min(nanos(policy.max()), base * (1 + policy.jitter().fraction())));
    }

    /** The un-jittered delay before {@code attempt}: min(initial × multiplier^(attempt−2), max). */
    public static Duration base(BackoffPolicy policy, int attempt) {
        return Duration.ofNanos((long) baseNanos(policy, attempt));
    }

    private static double baseNanos(BackoffPolicy policy, int attempt) {
        requireArgument(attempt >= 2, "attempt " + attempt + " (expected: >= 2; attempt 1 has no backoff)");
        double max = nanos(policy.max());
        double b = nanos(policy.initial()) * Math.pow(policy.multiplier(), attempt - 2);
        return Double.isFinite(b) ? Math.min(b, max) : max;
    }

    /** Nanoseconds, saturating for durations beyond ~292 years. */
    static long nanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }
}
