package dev.idemproxy.core.call;

import dev.idemproxy.core.store.RecordKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Duplicates waiting, in this process, for an in-flight call to end (onConcurrent: wait).
 * The owner wakes them when its record settles, so a coalesced waiter answers at once instead
 * of at its next poll; waiters for calls owned by another process poll the store.
 * This class is thread-safe.
 */
public final class InFlightWaiters {
    private final ConcurrentHashMap<RecordKey, List<Runnable>> waiting = new ConcurrentHashMap<>();

    public void await(RecordKey key, Runnable wake) {
        waiting.compute(key, (k, list) -> {
            List<Runnable> l = list == null ? new ArrayList<>(2) : list;
            l.add(wake);
            return l;
        });
    }

    public void forget(RecordKey key, Runnable wake) {
        waiting.computeIfPresent(key, (k, list) -> {
            list.remove(wake);
            return list.isEmpty() ? null : list;
        });
    }

    /** Runs and forgets every waiter for {@code key}: its record has settled or been released. */
    public void wake(RecordKey key) {
        List<Runnable> l = waiting.remove(key);
        if (l != null) {
            l.forEach(Runnable::run);
        }
    }
}
