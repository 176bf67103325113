/**
 * The embedded store backend: an append-only log of segment files in the data directory, its
 * indexes in memory, one process per directory. {@link dev.idemproxy.core.store.embedded.EmbeddedStore}
 * opens it (reading the log back, moving in a store file of an earlier version once) and hands
 * out its four stores.
 *
 * <p><b>How a write is kept.</b> Every operation runs on the store's executor; those queued
 * together run as one batch, their frames ({@code LogFormat}) gathered in a buffer and written
 * to the active segment with one write, and only then are they answered: an answer never runs
 * ahead of its write, so a crash of the process keeps everything answered. {@code store.embedded.sync}
 * says when the segment is also forced to disk (power loss). The compaction rewrites the oldest
 * segment's live parts at the end of the log and deletes it; segments only ever go from the
 * oldest end, so a deleted record never comes back from an older segment.
 *
 * <p><b>The simulation seam.</b> A deterministic simulator runs the store on its own terms with
 * {@link dev.idemproxy.core.store.embedded.EmbeddedStore#open(java.nio.file.Path, java.time.Clock,
 * dev.idemproxy.core.util.Ticker, dev.idemproxy.core.store.StorePolicy.EmbeddedSync, long,
 * dev.idemproxy.core.store.embedded.EmbeddedStore.Seams) EmbeddedStore.open(..., Seams)}:
 * <ul>
 *   <li>{@link dev.idemproxy.core.store.embedded.StoreExecutor}: where every task of the store
 *       runs (its operations' batches, the compaction's slices and turns, and, as the
 *       {@code syncExecutor}, the {@code interval} sync). The simulator's runs each task when it
 *       says, on its one thread; delayed tasks wait for its time. The store never blocks inside
 *       a task but on its file I/O.</li>
 *   <li>{@link dev.idemproxy.core.store.embedded.LogFiles}: the only file I/O of the log (list,
 *       open, append, read, force, truncate, delete segments, and sync the directory). A
 *       simulator's version keeps every append and force as an event and can crash the store
 *       between any two of them, or in the middle of an append (a torn write), and rebuild the
 *       files as a process crash or a power loss would leave them; {@code MemoryLogFiles} in the
 *       tests does exactly this, and {@code EmbeddedLogCrashTest} reopens the log cut at every
 *       byte of every write.</li>
 *   <li>Time: the {@link java.time.Clock} (leases, expiry) and the
 *       {@link dev.idemproxy.core.util.Ticker} (the compaction's slices) are injected as before.</li>
 * </ul>
 * The data directory's lock file is the one thing outside the seam (it is taken with the real
 * file system; a simulator gives each run a directory of its own).
 */
package dev.idemproxy.core.store.embedded;
