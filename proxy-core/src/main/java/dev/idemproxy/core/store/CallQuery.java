package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

/**
 * Which recent calls to list ({@link ReceiptStore#recentCalls}): every filter that is not null
 * must match (exactly), newest first, at most {@code limit}, starting after {@code cursor}. A
 * store looks at no more than {@link #MAX_SCAN} receipts per page, so a page with filters may
 * hold fewer than {@code limit} calls and still have a next one. This class is immutable.
 *
 * @param route  the route's name, or null for any
 * @param status the receipt's status ({@code PROCESSING}, {@code SUCCESS}, {@code FAILED}), or null
 * @param bizId  the business id, or null
 * @param taskId the task id, or null
 * @param cursor the call id to continue after (older than it), or null from the newest
 * @param limit  at most this many calls, >= 1
 */
public record CallQuery(String route, String status, String bizId, String taskId, String cursor, int limit) {
    /** At most this many receipts are looked at for one page. */
    public static final int MAX_SCAN = 1000;

    public CallQuery {
        if (limit < 1) {
            throw new IllegalArgumentException("limit " + limit + " (expected: >= 1)");
        }
    }

    /** The newest {@code limit} calls, unfiltered. */
    public static CallQuery newest(int limit) {
        return new CallQuery(null, null, null, null, null, limit);
    }

    /** Whether {@code r} passes every filter. */
    public boolean matches(Receipt r) {
        requireNonNull(r, "r");
        return (route == null || route.equals(r.route())) && (status == null || status.equals(r.status()))
                && (bizId == null || bizId.equals(r.bizId())) && (taskId == null || taskId.equals(r.taskId()));
    }
}
