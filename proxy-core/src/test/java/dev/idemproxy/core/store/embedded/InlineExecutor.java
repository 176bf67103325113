package dev.idemproxy.core.store.embedded;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * A {@link StoreExecutor} that runs each task at once on the caller's thread and keeps delayed
 * tasks until {@link #runDelayed} (never by itself): the store on one thread, deterministically,
 * as a simulator would run it.
 */
final class InlineExecutor implements StoreExecutor {
    private final List<Runnable> delayed = new ArrayList<>();
    private boolean shutdown;

    @Override
    public void execute(Runnable task) {
        if (shutdown) {
            throw new RejectedExecutionException("shut down");
        }
        task.run();
    }

    @Override
    public void schedule(Runnable task, long delayMillis) {
        if (!shutdown) {
            delayed.add(task);
        }
    }

    /** Runs the delayed tasks given so far (the ones they schedule wait for the next call). */
    void runDelayed() {
        List<Runnable> due = new ArrayList<>(delayed);
        delayed.clear();
        due.forEach(Runnable::run);
    }

    @Override
    public void shutdown() {
        shutdown = true;
        delayed.clear();
    }

    @Override
    public boolean awaitTermination(long millis) {
        return true;
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }
}
