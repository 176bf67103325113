package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * One page of recent calls ({@link ReceiptStore#recentCalls}), newest first. This class is immutable.
 *
 * @param calls      the calls' receipts
 * @param nextCursor the cursor of the next page (the last call id looked at), or null when there is none
 */
public record CallPage(List<Receipt> calls, String nextCursor) {
    public CallPage {
        calls = List.copyOf(requireNonNull(calls, "calls"));
    }
}
