package dev.idemproxy.core.store;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;

/**
 * One page of {@link ReceiptStore#recentCalls} over call ids read newest first (descending), for
 * the backends that read them in place (memory: an index; embedded: the receipts map itself). A
 * call id whose receipt is gone is skipped (and handed to {@code stale}, when not null). Stateless.
 */
public final class RecentCallScan {
    private RecentCallScan() {
    }

    /**
     * @param q       the query
     * @param callIds the call ids before {@code q.cursor()}, newest first
     * @param live    the live receipt of a call id, or null
     * @param stale   gets each call id whose receipt is gone; may be null
     */
    public static CallPage page(CallQuery q, Iterator<String> callIds, Function<String, Receipt> live,
            java.util.function.Consumer<String> stale) {
        List<Receipt> found = new ArrayList<>(Math.min(q.limit(), 64));
        String last = null;
        int scanned = 0;
        while (callIds.hasNext()) {
            if (found.size() == q.limit() || scanned == CallQuery.MAX_SCAN) {
                return new CallPage(found, last);
            }
            String callId = callIds.next();
            scanned++;
            last = callId;
            Receipt r = live.apply(callId);
            if (r == null) {
                if (stale != null) {
                    stale.accept(callId);
                }
                continue;
            }
            if (q.matches(r)) {
                found.add(r);
            }
        }
        return new CallPage(found, null);
    }
}
