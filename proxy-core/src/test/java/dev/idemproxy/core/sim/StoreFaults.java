package dev.idemproxy.core.sim;

import java.util.SplittableRandom;

/**
 * How one run's store misbehaves, drawn from its seed: how often an operation is queued rather
 * than answered at once, delayed a little, or stalled past a lease (holding everything behind it
 * on that proxy's connection), and how often a claim, an end or a renewal fails before its write
 * or loses its answer after it. A fault-free store is drawn too. This class is immutable.
 */
record StoreFaults(double queued, double delayed, double stalled, double failBefore, double lostAfter, double failRenew,
        double failTask, long stallNanos) {

    static final StoreFaults NONE = new StoreFaults(0, 0, 0, 0, 0, 0, 0, 0);

    static StoreFaults draw(SplittableRandom r, long leaseNanos) {
        if (r.nextInt(5) == 0) {
            return NONE;
        }
        boolean failing = r.nextInt(3) == 0;
        return new StoreFaults(0.3 + r.nextDouble() * 0.7, r.nextDouble() * 0.3, r.nextInt(3) == 0 ? r.nextDouble() * 0.05 : 0,
                failing ? r.nextDouble() * 0.1 : 0, failing ? r.nextDouble() * 0.1 : 0, failing ? r.nextDouble() * 0.3 : 0,
                failing ? r.nextDouble() * 0.2 : 0, leaseNanos + leaseNanos / 2 + r.nextLong(leaseNanos));
    }

    /** The delay of one operation: -1 answered at once, else nanoseconds before it may be applied. */
    long delay(SplittableRandom r) {
        if (r.nextDouble() >= queued) {
            return -1;
        }
        double x = r.nextDouble();
        if (x < stalled) {
            return stallNanos;
        }
        if (x < stalled + delayed) {
            return 1_000_000L + r.nextLong(200_000_000L);
        }
        return 0;
    }
}
