package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.tries.CallHeads;
import dev.idemproxy.core.tries.CallTries;
import dev.idemproxy.core.tries.RequestHead;
import dev.idemproxy.core.tries.ResponseHead;
import java.time.Instant;

/**
 * What one protected call left behind (docs/admin-api.md {@code GET /receipts/{callId}}). Written when
 * the call starts and again when it ends (a put replaces the receipt with the same call id). This
 * class is immutable.
 *
 * @param callId      the call's id
 * @param bizId       the business id, or null
 * @param key         the idempotency key as sent or derived (never the scope)
 * @param route       the route's name
 * @param status      e.g. {@code IN_FLIGHT}, {@code SUCCESS}, {@code FAILED}
 * @param reason      why it failed, or null
 * @param httpStatus  the final HTTP status, 0 when none
 * @param attempts    upstream attempts made
 * @param createdAt   when the call started
 * @param completedAt when it ended, or null
 * @param tool        an MCP call's tool name, or null
 * @param taskId      the call's task id ({@code X-Task-Id}), or null
 * @param tries       the call's tries and what followed each ({@link CallTries#NONE} while it runs)
 * @param heads       the call's request head and the head of the answer its client got, redacted;
 *                    null until the call has ended
 */
public record Receipt(
        String callId,
        String bizId,
        String key,
        String route,
        String status,
        String reason,
        int httpStatus,
        int attempts,
        Instant createdAt,
        Instant completedAt,
        String tool,
        String taskId,
        CallTries tries,
        CallHeads heads) {

    /** A receipt without a tool (a plain HTTP call) and without the call's details. */
    public Receipt(String callId, String bizId, String key, String route, String status, String reason, int httpStatus,
            int attempts, Instant createdAt, Instant completedAt) {
        this(callId, bizId, key, route, status, reason, httpStatus, attempts, createdAt, completedAt, null);
    }

    /** A receipt without the call's details (task, tries, heads). */
    public Receipt(String callId, String bizId, String key, String route, String status, String reason, int httpStatus,
            int attempts, Instant createdAt, Instant completedAt, String tool) {
        this(callId, bizId, key, route, status, reason, httpStatus, attempts, createdAt, completedAt, tool, null, CallTries.NONE,
                null);
    }

    public Receipt withTool(String t) {
        return new Receipt(callId, bizId, key, route, status, reason, httpStatus, attempts, createdAt, completedAt, t, taskId,
                tries, heads);
    }

    /** This receipt with the call's task id, tries and heads (may be null). */
    public Receipt withDetail(String task, CallTries t, CallHeads h) {
        return new Receipt(callId, bizId, key, route, status, reason, httpStatus, attempts, createdAt, completedAt, tool, task,
                t, h);
    }

    /** True when it carries any of the call's details (task, tries, heads). */
    public boolean hasDetail() {
        return taskId != null || !tries.isEmpty() || heads != null;
    }

    /** The call's request head, redacted; null until the call has ended. */
    public RequestHead request() {
        return heads == null ? null : heads.request();
    }

    /** The head of the answer the call's client got, redacted; null when none (yet). */
    public ResponseHead response() {
        return heads == null ? null : heads.response();
    }

    public Receipt {
        requireNonNull(callId, "callId");
        requireNonNull(key, "key");
        requireNonNull(route, "route");
        requireNonNull(status, "status");
        requireNonNull(createdAt, "createdAt");
        requireNonNull(tries, "tries");
    }

    /**
     * The receipt's position among those of its business id: createdAt as 16 zero-padded epoch
     * milliseconds, a space, then the call id; sorting these strings sorts by (createdAt, callId).
     */
    public String sortKey() {
        return DeadLetter.sortKey(createdAt, callId);
    }
}
