package dev.idemproxy.core.sim;

import java.util.SplittableRandom;

/**
 * How one run's store fails the writes of a call's trace that stand apart from its record: the
 * receipts and dead letters the engine writes on their own ({@code StoreWrites} tries them again,
 * about ten minutes in all). Each write fails with a drawn chance, and in an outage (from
 * {@code outageFrom} to {@code outageUntil}, simulated nanoseconds since the run began) every one
 * fails; an outage longer than the engine's tries makes it give up. This class is immutable.
 */
record WriteFaults(double receipt, double deadLetter, long outageFrom, long outageUntil) {
    static final WriteFaults NONE = new WriteFaults(0, 0, 0, 0);

    static WriteFaults draw(SplittableRandom r) {
        if (r.nextInt(4) != 0) {
            return NONE;
        }
        long from = 0;
        long until = 0;
        if (r.nextInt(3) == 0) {
            from = 1_000_000L * r.nextInt(3000);
            until = from + 1_000_000_000L * (r.nextBoolean() ? 5 + r.nextInt(60) : 11 * 60);
        }
        return new WriteFaults(r.nextDouble() * 0.4, r.nextDouble() * 0.4, from, until);
    }

    boolean none() {
        return equals(NONE);
    }

    /** Whether a write applied at {@code nanos} (since the run began) fails; {@code chance} the kind's. */
    boolean fails(long nanos, double chance, SplittableRandom r) {
        return (nanos >= outageFrom && nanos < outageUntil) || r.nextDouble() < chance;
    }
}
