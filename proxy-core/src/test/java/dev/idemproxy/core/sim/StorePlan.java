package dev.idemproxy.core.sim;

import dev.idemproxy.core.store.StorePolicy.EmbeddedSync;
import java.util.SplittableRandom;

/**
 * The store side of one run, drawn from its seed on a stream of its own (so that a run on the
 * memory store without write faults is the schedule it was before these draws existed: the seeds
 * of the bugs found then replay as they were found). Which store: the memory store shared by one
 * or two proxies, or the embedded store in the one proxy's process, with its sync mode, segment
 * size, and maybe a crash of that process ({@link #crash}) with what it leaves of the log. For a
 * run on the memory store, maybe receipt and dead-letter writes that fail ({@link WriteFaults}).
 * This class is immutable.
 *
 * @param crash        null: the embedded store's process does not crash
 * @param sideSeed     the seed of the side stream the run draws the store's own choices from
 */
record StorePlan(boolean embedded, EmbeddedSync sync, long segmentBytes, CrashPlan crash, WriteFaults writeFaults,
        long sideSeed) {
    /**
     * Salt of the side stream: chosen so that the seeds of the bugs found before the embedded store
     * and the write faults were simulated (59, 2834, 8449, 8179, and 888775 of the long run) keep
     * their memory-store schedules without write faults.
     */
    static final long SALT = 0x5_1DE5_7EB6L;

    /**
     * When and how the embedded store's process crashes, and when it is started again.
     *
     * @param atWrite  the crash waits for the store's next write (it dies in it) rather than strike between two steps
     */
    record CrashPlan(long atNanos, SimLogFiles.Crash kind, boolean atWrite, long restartAfterNanos) {}

    static StorePlan draw(long seed) {
        SplittableRandom r = new SplittableRandom(seed ^ SALT);
        long sideSeed = r.nextLong();
        if (r.nextInt(3) != 0) {
            return new StorePlan(false, null, 0, null, WriteFaults.draw(r), sideSeed);
        }
        EmbeddedSync sync = EmbeddedSync.values()[r.nextInt(3)];
        long segment = 4096L << r.nextInt(3);
        CrashPlan crash = null;
        if (r.nextInt(3) != 0) {
            boolean power = sync != EmbeddedSync.NONE && r.nextBoolean();
            crash = new CrashPlan(1_000_000L * r.nextInt(6000), power ? SimLogFiles.Crash.POWER : SimLogFiles.Crash.PROCESS,
                    r.nextBoolean(), 1_000_000L * (1 + r.nextInt(3000)));
        }
        return new StorePlan(true, sync, segment, crash, WriteFaults.NONE, sideSeed);
    }

    @Override
    public String toString() {
        return embedded ? "embedded store, sync " + sync.spelling() + ", segments of " + segmentBytes + " bytes, "
                + (crash == null ? "no crash" : crash) : "memory store, write faults " + writeFaults;
    }
}
