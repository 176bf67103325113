package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * What one protected call left behind (CONTRACT §7 {@code GET /receipts/{callId}}). Written when
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
        String tool) {

    /** A receipt without a tool (a plain HTTP call). */
    public Receipt(String callId, String bizId, String key, String route, String status, String reason, int httpStatus,
            int attempts, Instant createdAt, Instant completedAt) {
        this(callId, bizId, key, route, status, reason, httpStatus, attempts, createdAt, completedAt, null);
    }

    public Receipt withTool(String t) {
        return new Receipt(callId, bizId, key, route, status, reason, httpStatus, attempts, createdAt, completedAt, t);
    }

    public Receipt {
        requireNonNull(callId, "callId");
        requireNonNull(key, "key");
        requireNonNull(route, "route");
        requireNonNull(status, "status");
        requireNonNull(createdAt, "createdAt");
    }

    /**
     * The receipt's position among those of its business id: createdAt as 16 zero-padded epoch
     * milliseconds, a space, then the call id; sorting these strings sorts by (createdAt, callId).
     */
    public String sortKey() {
        return DeadLetter.sortKey(createdAt, callId);
    }
}
