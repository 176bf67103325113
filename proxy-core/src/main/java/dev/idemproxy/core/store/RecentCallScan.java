package dev.idemproxy.core.store;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One page of {@link ReceiptStore#recentCalls} over an index of sort keys read newest first, for
 * the backends that read it in place (memory, embedded). An index entry whose receipt is gone or
 * no longer has that sort key is skipped (and handed to {@code stale}, when not null). Stateless.
 */
public final class RecentCallScan {
    private RecentCallScan() {
    }

    /**
     * @param q       the query
     * @param entries the index's entries (sort key → call id) older than {@code q.cursor()}, newest first
     * @param live    the live receipt of a call id, or null
     * @param stale   gets the sort key of each entry whose receipt is gone or changed; may be null
     */
    public static CallPage page(CallQuery q, Iterator<Map.Entry<String, String>> entries, Function<String, Receipt> live,
            java.util.function.Consumer<String> stale) {
        List<Receipt> found = new ArrayList<>(Math.min(q.limit(), 64));
        String last = null;
        int scanned = 0;
        while (entries.hasNext()) {
            if (found.size() == q.limit() || scanned == CallQuery.MAX_SCAN) {
                return new CallPage(found, last);
            }
            Map.Entry<String, String> e = entries.next();
            scanned++;
            last = e.getKey();
            Receipt r = live.apply(e.getValue());
            if (r == null || !r.sortKey().equals(e.getKey())) {
                if (stale != null) {
                    stale.accept(e.getKey());
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
