package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * One dead-letter entry (docs/admin-api.md {@code GET /dlq}): a call that ended unsuccessfully. This
 * class is immutable.
 *
 * @param id         the entry's id (unique)
 * @param callId     the call's id
 * @param taskId     the task id, or null
 * @param bizId      the business id, or null
 * @param recordKey  where the call's idempotency record lives (route, scope hash, key), so that
 *                   {@code DELETE /dlq/{id}?release=true} can evict it; the scope hash is never shown
 * @param reason     why it ended unsuccessfully
 * @param lastStatus the last HTTP status seen, 0 when none
 * @param attempts   upstream attempts made
 * @param failedAt   when it ended; entries are listed in (failedAt, id) order
 * @param request    the request, for {@code POST /dlq/{id}/replay}
 * @param owner      the owner token of the execution that ended so (its claim of the record), which
 *                   a release or replay fences from writing that record back
 *                   ({@link RecordStore#evict(RecordKey, String)}); null in the constructor, or
 *                   in an entry written before entries kept it: the call id, as owners were then
 */
public record DeadLetter(
        String id,
        String callId,
        String taskId,
        String bizId,
        RecordKey recordKey,
        String reason,
        int lastStatus,
        int attempts,
        Instant failedAt,
        StoredRequest request,
        String owner) {

    public DeadLetter {
        if (owner == null) {
            owner = callId;
        }
        requireNonNull(id, "id");
        requireNonNull(callId, "callId");
        requireNonNull(recordKey, "recordKey");
        requireNonNull(reason, "reason");
        requireNonNull(failedAt, "failedAt");
        requireNonNull(request, "request");
    }

    /** An entry whose owner token is its call id (an execution without a record of its own). */
    public DeadLetter(String id, String callId, String taskId, String bizId, RecordKey recordKey, String reason,
            int lastStatus, int attempts, Instant failedAt, StoredRequest request) {
        this(id, callId, taskId, bizId, recordKey, reason, lastStatus, attempts, failedAt, request, null);
    }

    /**
     * The entry's position in the listing order: failedAt as 16 zero-padded epoch milliseconds,
     * a space, then the id. Sorting these strings sorts by (failedAt, id); list cursors are such strings.
     */
    public String sortKey() {
        return sortKey(failedAt, id);
    }

    static String sortKey(Instant failedAt, String id) {
        String millis = Long.toString(failedAt.toEpochMilli());
        return "0".repeat(Math.max(0, 16 - millis.length())) + millis + " " + id;
    }
}
