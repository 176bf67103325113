package dev.idemproxy.core.tries;

import static java.util.Objects.requireNonNull;

/**
 * One upstream try of a call and what the proxy decided after it (docs/admin-api.md
 * {@code GET /calls/{callId}}). This class is immutable.
 *
 * @param number        the try's number, 1 for the first
 * @param startMs       when it started, in milliseconds from the call's start
 * @param ms            how long it took: until its answer was judged, or its failure
 * @param status        the upstream's HTTP status, 0 when none came
 * @param failure       the failure's contract spelling ({@code connect-failure}, {@code read-timeout},
 *                      {@code reset}, …), or null when an answer came
 * @param outcomeClass  its outcome class
 * @param next          what followed it; null only for a try the call ended without deciding on
 * @param waitMs        the wait before the next try (a retry, also after a receipt check), -1 when none
 * @param why           for a retry {@code backoff} or {@code retry-after}; for a receipt check its
 *                      answer ({@code NOT_FOUND}, {@code PROCESSING}, {@code SUCCESS}, {@code FAILED},
 *                      {@code UNRESOLVED}); for an answer or a stop the decision's reason
 *                      ({@code executed}, {@code attempts_exhausted}, {@code budget_task}, …)
 * @param checkMs       how long the receipt check took (its polls included), -1 when none
 * @param afterCheck    what followed the receipt check, or null
 * @param afterCheckWhy why, as {@code why} spells it for {@code afterCheck}, or null
 */
public record Try(int number, long startMs, long ms, int status, String failure, TryClass outcomeClass, TryNext next,
        long waitMs, String why, long checkMs, TryNext afterCheck, String afterCheckWhy) {

    /** The {@code why} of a retry after the route's backoff. */
    public static final String BACKOFF = "backoff";
    /** The {@code why} of a retry after the upstream's {@code Retry-After}. */
    public static final String RETRY_AFTER = "retry-after";

    public Try {
        if (number < 1) {
            throw new IllegalArgumentException("number " + number + " (expected: >= 1)");
        }
        requireNonNull(outcomeClass, "outcomeClass");
        if (status != 0 && (status < 100 || status > 599)) {
            throw new IllegalArgumentException("status " + status + " (expected: 0 or 100..599)");
        }
    }

    /** True when a receipt check followed this try. */
    public boolean checked() {
        return next == TryNext.CHECK_RECEIPT;
    }
}
