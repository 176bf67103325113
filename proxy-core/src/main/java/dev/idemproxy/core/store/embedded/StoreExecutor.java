package dev.idemproxy.core.store.embedded;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The executor seam of the embedded store: where its work runs, one task at a time, in the order
 * given. The real one is a dedicated daemon thread ({@link #thread}); a simulator supplies one
 * that runs tasks when it says, on its one simulated thread, so that it can crash the store
 * between any two of them. The store never blocks inside a task but on its own file I/O.
 */
public interface StoreExecutor {

    /** Runs {@code task} after the tasks given before it; throws {@link java.util.concurrent.RejectedExecutionException} once shut down. */
    void execute(Runnable task);

    /** Runs {@code task} after {@code delayMillis} (by the executor's own time); ignored once shut down. */
    void schedule(Runnable task, long delayMillis);

    /** Takes no new tasks; those given already still run, delayed ones are dropped. */
    void shutdown();

    /** Waits up to {@code millis} for the tasks given before {@link #shutdown}; false if some still run. Blocking. */
    boolean awaitTermination(long millis) throws InterruptedException;

    boolean isShutdown();

    /** One daemon thread named {@code name}. */
    static StoreExecutor thread(String name) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setRemoveOnCancelPolicy(true);
        return new StoreExecutor() {
            @Override
            public void execute(Runnable task) {
                executor.execute(task);
            }

            @Override
            public void schedule(Runnable task, long delayMillis) {
                if (!executor.isShutdown()) {
                    try {
                        executor.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
                    } catch (java.util.concurrent.RejectedExecutionException e) {
                        // shut down meanwhile
                    }
                }
            }

            @Override
            public void shutdown() {
                executor.shutdown();
            }

            @Override
            public boolean awaitTermination(long millis) throws InterruptedException {
                if (executor.awaitTermination(millis, TimeUnit.MILLISECONDS)) {
                    return true;
                }
                executor.shutdownNow();
                return false;
            }

            @Override
            public boolean isShutdown() {
                return executor.isShutdown();
            }
        };
    }
}
