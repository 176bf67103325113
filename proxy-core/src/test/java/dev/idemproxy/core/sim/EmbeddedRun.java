package dev.idemproxy.core.sim;

import dev.idemproxy.core.store.StorePolicy.EmbeddedSync;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.util.Mistakes;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A run on the embedded store: the one proxy process and its store ({@link SimEmbeddedStore}), and,
 * when the run's {@link StorePlan} says so, that process's crash (between two steps, or in the
 * store's next write) and its restart: the log's files as the crash left them
 * ({@link SimLogFiles#afterCrash}), the store opened on them, what it kept judged
 * ({@link ReopenCheck}), a new proxy process on it, and every call answered from a kept record
 * sent once more. While the process is down, clients' connections are refused. Not thread-safe:
 * the simulation's one thread.
 */
final class EmbeddedRun {
    private final World w;
    private final StorePlan plan;
    private final Path directory;
    private final Mistakes mistakes;
    private final SplittableRandom random;
    private SimEmbeddedStore current;
    private SimEmbeddedStore crashed;
    private long crashedAt = -1;
    private boolean down;
    /** Call ids whose claims a power loss took (under {@code interval}: their duplicates may run again), and whose completions. */
    private final Set<String> lostClaims = new HashSet<>();
    private final Set<String> lostCompletions = new HashSet<>();
    private ReopenCheck check;

    EmbeddedRun(World w, StorePlan plan, Path directory, Mistakes mistakes) {
        this.w = w;
        this.plan = plan;
        this.directory = directory;
        this.mistakes = mistakes;
        this.random = w.side.split();
        this.current = open(0, new SimLogFiles(w.trace));
    }

    private SimEmbeddedStore open(int process, SimLogFiles files) {
        return new SimEmbeddedStore(w, directory, process, plan.sync(), plan.segmentBytes(), files, random.split(), mistakes,
                this::crash);
    }

    Stores stores() {
        return current.stores();
    }

    SimEmbeddedStore current() {
        return current;
    }

    /** The store executors of every process of the run (a crashed one's never run again). */
    SimStoreExecutor[] executors() {
        return crashed == null ? new SimStoreExecutor[] {current.executor, current.syncExecutor}
                : new SimStoreExecutor[] {current.executor, current.syncExecutor, crashed.executor, crashed.syncExecutor};
    }

    /** Whether the live store's threads have nothing queued (the run may end only then: a real store answers what it took). */
    boolean idle() {
        return current.executor.idle() && current.syncExecutor.idle();
    }

    /**
     * Where the log ends as a write is answered. Under {@code always} everything answered must be
     * forced by then: else the store broke its promise, whatever happens next.
     */
    long acked() {
        long mark = current.files.mark();
        if (plan.sync() == EmbeddedSync.ALWAYS && !current.files.durable(mark)) {
            w.violation("under sync always, the embedded store answered a write its log had not forced (log end " + Long.toHexString(mark) + ")");
        }
        return mark;
    }

    /** Whether the process died in a power loss that its sync mode let take writes already answered ({@code interval}). */
    boolean lostUnforced() {
        return crashed != null && plan.crash().kind() == SimLogFiles.Crash.POWER && plan.sync() == EmbeddedSync.INTERVAL;
    }

    boolean down() {
        return down;
    }

    /**
     * Whether the power loss took the claim of either execution's call, the later one running
     * after it: the intent may run again (a request the dead process had sent still arrives).
     */
    boolean claimLost(Ledger.Execution before, Ledger.Execution now) {
        return (lostClaims.contains(before.callId()) || lostClaims.contains(now.callId())) && now.atMillis() >= crashedAt / 1_000_000L;
    }

    /** Whether the power loss took the completion that {@code callId}'s replays were answered from. */
    boolean completionLost(String callId) {
        return lostCompletions.contains(callId);
    }

    void planCrash() {
        StorePlan.CrashPlan c = plan.crash();
        if (c == null) {
            return;
        }
        w.at(c.atNanos(), "storeCrash", () -> {
            if (!c.atWrite()) {
                crash();
                return;
            }
            current.files.arm(random.split());
            w.at(2_000_000_000L, "storeCrashUnwritten", this::crash);  // no write came: it strikes anyway
        });
    }

    /** The process dies now (or died in a write): its loops and its store stop for good. */
    private void crash() {
        if (crashed != null) {
            return;
        }
        crashedAt = w.time.sinceStart();
        crashed = current;
        crashed.die();
        w.proxies.get(0).crash();
        w.clients.forEach(c -> c.proxyCrashed(0));
        down = true;
        w.at(plan.crash().restartAfterNanos(), "restart", this::restart);
    }

    private void restart() {
        SimLogFiles files = crashed.files.afterCrash(plan.crash().kind(), random.split());
        w.trace.step("restart", files.bytes(), plan.crash().kind().ordinal(), plan.crash().kind() + ", " + files.bytes() + " bytes kept");
        try {
            current = open(1, files);
        } catch (RuntimeException e) {
            w.violation("the embedded store did not open again after a crash: " + e);
            return;  // still down: every client is refused from now on
        }
        check = new ReopenCheck(w, crashed.files, current, plan.crash().kind(), 0);
        lostClaims.addAll(check.lostClaims());
        lostCompletions.addAll(check.lostCompletions());
        w.restarted(current.stores());
        down = false;
        check.sendAgain();
    }

    /** The invariants of the reopened store that wait for the end of the run (the calls sent again). */
    void checkAfterRun() {
        if (check != null) {
            check.afterRun();
        }
    }

    /** Lets the directory's lock go (the end of the run; a crashed process's was let go when it died). */
    void close() {
        if (crashed != current) {
            current.die();
        }
    }
}
