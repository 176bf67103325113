package dev.idemproxy.core.retry;

import java.util.random.RandomGenerator;

/** A random source whose {@code nextDouble()} always answers the same value, for exact jitter checks. */
final class FixedRandom implements RandomGenerator {
    private final double value;

    FixedRandom(double value) {
        this.value = value;
    }

    @Override
    public long nextLong() {
        return 0;
    }

    @Override
    public double nextDouble() {
        return value;
    }
}
