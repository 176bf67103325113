package dev.idemproxy.app.demo;

import java.util.SplittableRandom;

/**
 * The demo upstream's seeded script: what it does with the n-th request it receives for an
 * intent. The answer depends only on the seed, the intent and n, never on timing or on the order
 * in which concurrent requests arrive, so a run through the proxy and a direct run meet the same
 * faults and a seed reproduces a run. Weights (out of 100): answer 50, answer late 17, commit
 * and drop 10, 503 5, 429 with {@code Retry-After: 0} 12, with {@code Retry-After: 1} 6.
 * This class is immutable and thread-safe.
 */
public final class FaultPlan {
    private static final Fault[] FAULTS = Fault.values();
    private static final int[] WEIGHTS = {50, 17, 10, 5, 12, 6};
    private static final int TOTAL = 100;

    private final long seed;
    private final boolean faults;

    public FaultPlan(long seed) {
        this(seed, true);
    }

    private FaultPlan(long seed, boolean faults) {
        this.seed = seed;
        this.faults = faults;
    }

    /** A plan that always answers at once ({@code idemproxy demo serve}). */
    public static FaultPlan none() {
        return new FaultPlan(0, false);
    }

    public long seed() {
        return seed;
    }

    /**
     * What the upstream does with the {@code arrival}-th request (0 for the first) for intent
     * number {@code intent}.
     */
    public Fault faultFor(int intent, int arrival) {
        if (intent < 0 || arrival < 0) {
            throw new IllegalArgumentException("intent " + intent + ", arrival " + arrival + " (expected: >= 0)");
        }
        if (!faults) {
            return Fault.ANSWER;
        }
        long mixed = seed * 0x9E3779B97F4A7C15L + ((long) intent << 20) + arrival;
        int roll = new SplittableRandom(mixed).nextInt(TOTAL);
        for (int i = 0; i < FAULTS.length; i++) {
            roll -= WEIGHTS[i];
            if (roll < 0) {
                return FAULTS[i];
            }
        }
        throw new AssertionError("weights add up to " + TOTAL);
    }
}
