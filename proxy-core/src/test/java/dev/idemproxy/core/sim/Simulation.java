package dev.idemproxy.core.sim;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.util.Mistakes;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Runs schedules: one seed ({@link #runOne}), or seeds one after another until one breaks an
 * invariant ({@link #run}). The engine's logging is off while schedules run (a call's log line
 * per call would cost more than the call), except for a verbose replay. Not thread-safe: one
 * simulation at a time per instance.
 */
final class Simulation {
    /** One schedule's result: its digest (the same for every run of the seed) and what it broke. */
    record Result(long seed, long digest, long steps, List<String> violations, java.util.Map<String, String> knownBugs,
            List<String> trace) {
        boolean ok() {
            return violations.isEmpty();
        }
    }

    /**
     * Seeds run, the first that failed (null when none did), per known bug the seeds that showed
     * it, and (a run that goes on past failures) every seed that failed, its first violation.
     */
    record Summary(long schedules, Result failed, long millis, java.util.Map<String, List<Long>> knownBugs,
            java.util.Map<Long, String> failures) {}

    private final Mistakes mistakes;
    /** Print a line every 50,000 schedules (a long run). */
    private final boolean progress = Boolean.getBoolean("sim.progress");
    /** Go on past failing seeds, each noted (a long run's census); else stop at the first. */
    private final boolean keepGoing = Boolean.getBoolean("sim.keepGoing");
    private final ProxyMetrics metrics = new ProxyMetrics(new SimpleMeterRegistry());
    private java.nio.file.Path storeDirectory;

    Simulation(Mistakes mistakes) {
        this.mistakes = mistakes;
    }

    Result runOne(long seed, boolean verbose) {
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        Level was = root.getLevel();
        Logger retries = (Logger) LoggerFactory.getLogger("idemproxy.retries");
        Level retriesWas = retries.getLevel();
        if (!verbose) {
            root.setLevel(Level.OFF);
        } else {
            retries.setLevel(Level.DEBUG);
        }
        World w = null;
        try {
            w = new World(seed, verbose, mistakes, metrics, storeDirectory());
            new Scheduler(w).run();
            try {
                Invariants.check(w);
            } catch (RuntimeException e) {  // a store the checks could not read (one that never opened again)
                w.violation("the invariants could not be checked: " + e);
            }
            return new Result(seed, w.trace.digest(), w.trace.steps(), List.copyOf(w.violations), java.util.Map.copyOf(w.knownBugs),
                    w.trace.lines());
        } finally {
            if (w != null && w.embedded != null) {
                w.embedded.close();
            }
            root.setLevel(was);
            retries.setLevel(retriesWas);
        }
    }

    /**
     * Where the embedded store of each run takes its lock file (its log is in memory): one folder
     * for this simulation, made at its first run on that store, deleted when the JVM exits.
     */
    private java.nio.file.Path storeDirectory() {
        if (storeDirectory == null) {
            try {
                storeDirectory = java.nio.file.Files.createTempDirectory("idemproxy-sim");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            storeDirectory.toFile().deleteOnExit();
            storeDirectory.resolve("idemproxy.lock").toFile().deleteOnExit();
        }
        return storeDirectory;
    }

    /** Runs {@code count} seeds from {@code first}, stopping at the first that breaks an invariant. */
    Summary run(long first, long count) {
        long start = System.nanoTime();
        java.util.Map<String, List<Long>> known = new java.util.TreeMap<>();
        java.util.Map<Long, String> failures = new java.util.TreeMap<>();
        Result firstFailed = null;
        for (long i = 0; i < count; i++) {
            Result r = runOne(first + i, false);
            r.knownBugs().keySet().forEach(k -> known.computeIfAbsent(k, x -> new java.util.ArrayList<>()).add(r.seed()));
            if (progress && (i + 1) % 50_000 == 0) {
                System.out.printf("progress: %d schedules, %d s%n", i + 1, (System.nanoTime() - start) / 1_000_000_000L);
            }
            if (!r.ok()) {
                firstFailed = firstFailed == null ? r : firstFailed;
                failures.put(r.seed(), r.violations().get(0));
                if (!keepGoing) {
                    return new Summary(i + 1, r, (System.nanoTime() - start) / 1_000_000, known, failures);
                }
            }
        }
        return new Summary(count, firstFailed, (System.nanoTime() - start) / 1_000_000, known, failures);
    }

    /** The line that replays {@code seed} verbosely. */
    static String replayCommand(long seed, Mistakes mistakes) {
        return "tools/simulate.sh --seed " + seed + (mistakes.equals(Mistakes.NONE) ? "" : " --plant " + mistakes.toString().replaceAll("[\\[\\] ]", ""));
    }
}
