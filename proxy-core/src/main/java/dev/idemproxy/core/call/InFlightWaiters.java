package dev.idemproxy.core.call;

import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.RecordKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Duplicates waiting, in this process, for an in-flight call to end (onConcurrent: wait), and
 * the outcome their owner settled, so that a waiter is answered with that outcome rather than
 * from a second read of the store: a full memory store, or a Redis that evicts, may drop the
 * record as soon as it is written, and the waiter's claim would then run the call again.
 *
 * <p>The owner marks its key {@linkplain #settling settling} with its outcome before it writes
 * the record (only when someone waits here), then {@linkplain #wake wakes} the waiters with it
 * once the write is done. A waiter registers for its whole wait; before each poll of the store,
 * and after a poll that found the key free again, it asks for the mark, which stays
 * {@value #MARK_MILLIS} ms after the wake for polls already on their way. Waiters for calls owned
 * by another process only poll the store. Waiters and owners meet by key and fingerprint: a
 * duplicate with another payload is never answered from this owner's outcome (its poll hears the
 * store's refusal). This class is thread-safe.
 */
public final class InFlightWaiters {
    /** How long a settled outcome stays marked after its waiters were woken. */
    static final long MARK_MILLIS = 1_000;

    private static final class Waiting {
        final List<Consumer<ClaimResult>> wakes = new ArrayList<>(2);
        ClaimResult settled;
        /** Whether the owner's write of {@link #settled} succeeded (else it is under way). */
        boolean written;
    }

    private record Slot(RecordKey key, String fingerprint) {}

    private final ConcurrentHashMap<Slot, Waiting> waiting = new ConcurrentHashMap<>();

    /**
     * Registers {@code wake} for the key's outcome; when the owner has settled it already (its
     * record written), returns that outcome instead (and registers nothing).
     */
    public ClaimResult await(RecordKey key, String fingerprint, Consumer<ClaimResult> wake) {
        ClaimResult[] settled = {null};
        waiting.compute(new Slot(key, fingerprint), (k, w) -> {
            Waiting next = w == null ? new Waiting() : w;
            if (next.settled != null && next.written) {
                settled[0] = next.settled;
            } else {
                next.wakes.add(wake);
            }
            return next;
        });
        return settled[0];
    }

    public void forget(RecordKey key, String fingerprint, Consumer<ClaimResult> wake) {
        waiting.computeIfPresent(new Slot(key, fingerprint), (k, w) -> {
            w.wakes.remove(wake);
            return w.wakes.isEmpty() && w.settled == null ? null : w;
        });
    }

    /**
     * The outcome the key's owner here settled (marked, not yet expired), or null: with
     * {@code writtenOnly}, only once the owner's record holds it; else also while its write is under
     * way (what a claim that took the record from under the owner must keep, as the owner's write
     * will then be refused).
     */
    public ClaimResult settled(RecordKey key, String fingerprint, boolean writtenOnly) {
        Waiting w = waiting.get(new Slot(key, fingerprint));
        return w == null || (writtenOnly && !w.written) ? null : w.settled;
    }

    /**
     * Called by the owner before it writes its outcome: marks the key settled with
     * {@code outcome} (a {@link ClaimResult.Completed} or {@link ClaimResult.NotRetained}, what a
     * claim would answer once the write is done) when anyone waits for it here.
     */
    public void settling(RecordKey key, String fingerprint, ClaimResult outcome) {
        if (waiting.isEmpty()) {
            return;  // nobody waits (most calls): no update, no objects for one
        }
        waiting.computeIfPresent(new Slot(key, fingerprint), (k, w) -> {
            w.settled = outcome;
            return w;
        });
    }

    /**
     * Runs and forgets every waiter for {@code key}: its record settled as {@code outcome}, or,
     * when null, was released or ended in a way the owner cannot vouch for, and the mark goes:
     * the waiters claim again. A mark stays {@value #MARK_MILLIS} ms, removed on {@code timer}.
     */
    public void wake(RecordKey key, String fingerprint, ClaimResult outcome, ScheduledExecutorService timer) {
        if (waiting.isEmpty()) {
            // Nobody waits and nothing is marked (most calls). A waiter that registers from now on
            // missed this wake as it would miss one a moment earlier: its polls of the store find the end.
            return;
        }
        List<Consumer<ClaimResult>> woken = new ArrayList<>(2);
        boolean[] marked = {false};
        Slot slot = new Slot(key, fingerprint);
        waiting.computeIfPresent(slot, (k, w) -> {
            woken.addAll(w.wakes);
            w.wakes.clear();
            if (outcome == null || w.settled == null) {
                return null;
            }
            w.written = true;
            marked[0] = true;
            return w;
        });
        woken.forEach(wake -> wake.accept(outcome));
        if (marked[0]) {
            timer.schedule(() -> waiting.computeIfPresent(slot, (k, w) -> {
                w.settled = null;
                w.written = false;
                return w.wakes.isEmpty() ? null : w;
            }), MARK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** Keys with waiters or a mark; for tests. */
    int size() {
        return waiting.size();
    }
}
