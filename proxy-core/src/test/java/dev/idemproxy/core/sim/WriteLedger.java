package dev.idemproxy.core.sim;

import dev.idemproxy.core.store.StoreRetries;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every try of a receipt or dead-letter write the engine made on its own (not with a record), by
 * call id, as the store saw it: how many tries, how many failed in a row since the last that
 * succeeded. A write whose last try failed is still under way unless the engine had made all its
 * tries ({@link StoreRetries#WRITES}): then it gave up, which the invariants accept only for a
 * write that failed that often. Not thread-safe: one simulation thread.
 */
final class WriteLedger {
    enum Kind { RECEIPT, DEAD_LETTER }

    /** One call's writes of one kind. */
    static final class Writes {
        int tries;
        int failedInRow;
        boolean written;
        /** The dead letter's own id (its last try's). */
        String entryId;
        /** The proxy that wrote it. */
        int proxy;

        boolean gaveUp() {
            return failedInRow > 0 && !StoreRetries.WRITES.triesAfter(failedInRow);
        }

        @Override
        public String toString() {
            return tries + " tries, " + failedInRow + " failed in a row" + (written ? ", written once" : "");
        }
    }

    private final Map<String, Writes> receipts = new LinkedHashMap<>();
    private final Map<String, Writes> deadLetters = new LinkedHashMap<>();

    void tried(Kind kind, int proxy, String callId, String entryId, boolean ok) {
        Writes w = (kind == Kind.RECEIPT ? receipts : deadLetters).computeIfAbsent(callId, k -> new Writes());
        w.tries++;
        w.entryId = entryId;
        w.proxy = proxy;
        if (ok) {
            w.written = true;
            w.failedInRow = 0;
        } else {
            w.failedInRow++;
        }
    }

    /** Whether some write failed last and the engine of a proxy that did not crash may still try it again. */
    boolean pending(java.util.function.IntPredicate crashed) {
        return pending(receipts, crashed) || pending(deadLetters, crashed);
    }

    private static boolean pending(Map<String, Writes> m, java.util.function.IntPredicate crashed) {
        for (Writes w : m.values()) {
            if (w.failedInRow > 0 && !w.gaveUp() && !crashed.test(w.proxy)) {
                return true;
            }
        }
        return false;
    }

    /** {@code callId}'s writes of {@code kind}, or null when the engine made none on its own. */
    Writes of(Kind kind, String callId) {
        return (kind == Kind.RECEIPT ? receipts : deadLetters).get(callId);
    }

    Map<String, Writes> deadLetters() {
        return deadLetters;
    }
}
