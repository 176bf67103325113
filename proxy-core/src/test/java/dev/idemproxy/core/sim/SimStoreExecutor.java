package dev.idemproxy.core.sim;

import dev.idemproxy.core.store.embedded.StoreExecutor;
import java.util.ArrayDeque;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;

/**
 * The embedded store's thread, simulated: a FIFO of tasks run one at a time when the scheduler
 * picks it, and timers on the simulation's time ({@link #schedule}: the compaction's turn, the
 * {@code interval} sync). A task may wait before it can run (a slow disk, drawn from the run's
 * {@link StoreFaults} like a store connection's latency), holding up those behind it. A task the
 * process died in ({@link SimLogFiles.Died}) calls the crash it was given. Frozen once the process
 * crashed: it never runs again. Not thread-safe: the simulation's one thread.
 */
final class SimStoreExecutor implements StoreExecutor {
    private record Task(long readyAt, Runnable run) {}

    private record Timer(long at, long seq, Runnable run) {}

    private final String name;
    private final SimTime time;
    private final Trace trace;
    private final StoreFaults faults;
    private final SplittableRandom random;
    private final Runnable died;
    private final ArrayDeque<Task> tasks = new ArrayDeque<>();
    private final PriorityQueue<Timer> timers = new PriorityQueue<>(
            (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
    private long seq;
    private boolean shutdown;
    private boolean frozen;

    /** @param random null: every task can run at once */
    SimStoreExecutor(String name, SimTime time, Trace trace, StoreFaults faults, SplittableRandom random, Runnable died) {
        this.name = name;
        this.time = time;
        this.trace = trace;
        this.faults = faults;
        this.random = random;
        this.died = died;
    }

    @Override
    public void execute(Runnable task) {
        if (shutdown) {
            throw new RejectedExecutionException(name + " is shut down");
        }
        long delay = random == null ? -1 : faults.delay(random);
        tasks.add(new Task(time.nanos() + Math.max(0, delay), task));
    }

    @Override
    public void schedule(Runnable task, long delayMillis) {
        if (!shutdown) {
            timers.add(new Timer(time.nanos() + delayMillis * 1_000_000L, seq++, task));
        }
    }

    @Override
    public void shutdown() {
        shutdown = true;
        timers.clear();
    }

    @Override
    public boolean awaitTermination(long millis) {
        return true;
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    void freeze() {
        frozen = true;
    }

    /** Whether a task can run now (due timers are moved to the FIFO first). */
    boolean ready() {
        if (frozen) {
            return false;
        }
        while (!timers.isEmpty() && timers.peek().at <= time.nanos()) {
            tasks.add(new Task(time.nanos(), timers.poll().run));
        }
        return !tasks.isEmpty() && tasks.peek().readyAt <= time.nanos();
    }

    /** Whether no task waits (timers aside: the sync and the compaction's turns come back for good), or it never runs again. */
    boolean idle() {
        return frozen || tasks.isEmpty();
    }

    /** When a task can run next (the head's time, or the next timer), or -1. */
    long nextTime() {
        if (frozen) {
            return -1;
        }
        long next = tasks.isEmpty() ? -1 : tasks.peek().readyAt;
        if (!timers.isEmpty() && (next < 0 || timers.peek().at < next)) {
            next = timers.peek().at;
        }
        return next;
    }

    /** Runs the head task to completion. */
    void runOne() {
        Task t = tasks.poll();
        trace.step("storeTask", name.hashCode(), tasks.size(), name);
        try {
            t.run.run();
        } catch (SimLogFiles.Died d) {
            died.run();
        } catch (Throwable e) {
            trace.thrown(name, e);
        }
    }

    /** Runs queued tasks, whatever their time, until {@code stage} is done (the invariants' reads); at most {@code 10,000}. */
    <T> T await(CompletionStage<T> stage) {
        var f = stage.toCompletableFuture();
        for (int i = 0; i < 10_000 && !f.isDone() && !frozen && !tasks.isEmpty(); i++) {
            runOne();
        }
        if (!f.isDone()) {
            throw new IllegalStateException(name + " did not answer a read" + (frozen ? " (crashed)" : ""));
        }
        return f.join();
    }
}
