package dev.idemproxy.core.call;

import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.RecordKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Duplicates waiting, in this process, for an in-flight call to end (onConcurrent: wait).
 * The owner wakes them when its record settles and hands them what it stored, so a coalesced
 * waiter answers at once from the owner's outcome, not from a second read of the store (a full
 * memory store, or a Redis that evicts, may already have dropped the record, and the waiter's
 * claim would then run the call again). Waiters for calls owned by another process poll the
 * store. This class is thread-safe.
 */
public final class InFlightWaiters {
    private final ConcurrentHashMap<RecordKey, List<Consumer<ClaimResult>>> waiting = new ConcurrentHashMap<>();

    public void await(RecordKey key, Consumer<ClaimResult> wake) {
        waiting.compute(key, (k, list) -> {
            List<Consumer<ClaimResult>> l = list == null ? new ArrayList<>(2) : list;
            l.add(wake);
            return l;
        });
    }

    public void forget(RecordKey key, Consumer<ClaimResult> wake) {
        waiting.computeIfPresent(key, (k, list) -> {
            list.remove(wake);
            return list.isEmpty() ? null : list;
        });
    }

    /**
     * Runs and forgets every waiter for {@code key}: its record has settled as {@code settled}
     * (a {@link ClaimResult.Completed} or {@link ClaimResult.NotRetained}, what a claim would now
     * answer), or, when null, was released or ended in a way the owner cannot vouch for: the
     * waiters claim again.
     */
    public void wake(RecordKey key, ClaimResult settled) {
        List<Consumer<ClaimResult>> l = waiting.remove(key);
        if (l != null) {
            l.forEach(w -> w.accept(settled));
        }
    }
}
