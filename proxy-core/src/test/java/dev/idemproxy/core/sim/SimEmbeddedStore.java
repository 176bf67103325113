package dev.idemproxy.core.sim;

import dev.idemproxy.core.store.StorePolicy.EmbeddedSync;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.embedded.EmbeddedStore;
import dev.idemproxy.core.store.embedded.SimEmbedded;
import dev.idemproxy.core.util.Mistakes;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.CompletionStage;

/**
 * The real embedded store ({@link EmbeddedStore}) of one simulated proxy process, opened through its
 * simulation seam: its log in {@link SimLogFiles}, its work on a {@link SimStoreExecutor} (whose
 * tasks may wait on a slow disk), its {@code interval} sync on another. Opening it reads the log
 * back, as a restarted process does. The data directory holds only the store's lock file (one per
 * simulation, each run's store in it by turns); a crash lets the lock go, as the process's death
 * would ({@link #die}). Not thread-safe: the simulation's one thread.
 */
final class SimEmbeddedStore {
    final SimLogFiles files;
    final SimStoreExecutor executor;
    final SimStoreExecutor syncExecutor;
    private final EmbeddedStore backend;

    /**
     * Opens the store on {@code files}.
     *
     * @param process which process of the run (0, or 1 once restarted), for the trace
     * @param died    what a task the process died in calls
     * @throws dev.idemproxy.core.store.StoreUnavailableException when the log cannot be read back
     */
    SimEmbeddedStore(World w, Path directory, int process, EmbeddedSync sync, long segmentBytes, SimLogFiles files,
            SplittableRandom random, Mistakes mistakes, Runnable died) {
        this.files = files;
        this.executor = new SimStoreExecutor("store" + process, w.time, w.trace, w.faults, random, died);
        this.syncExecutor = new SimStoreExecutor("sync" + process, w.time, w.trace, w.faults, null, died);
        this.backend = EmbeddedStore.open(directory, w.time, w.time, sync, segmentBytes,
                new EmbeddedStore.Seams(executor, syncExecutor, files, mistakes));
    }

    Stores stores() {
        return backend.stores();
    }

    /** The process died: nothing of the store runs again, its lock is let go. */
    void die() {
        executor.freeze();
        syncExecutor.freeze();
        SimEmbedded.abandon(backend);
    }

    /** What {@code stage} gives, the store's queued tasks run until it does (the invariants' reads). */
    <T> T await(CompletionStage<T> stage) {
        return executor.await(stage);
    }
}
