package dev.idemproxy.core.call;

import io.netty.handler.codec.http.HttpHeaders;
import dev.idemproxy.core.util.ProxyHeaders;
import io.netty.util.AsciiString;

/**
 * Who a protected call is: its call id (stable across attempts), its idempotency key and the
 * header it travels in, and its task and business ids. This class is immutable.
 *
 * @param key   the resolved key (client's, derived or generated); null when idempotency is off
 */
public record CallIdentity(String callId, String keyHeader, String key, String taskId, String bizId) {
    public static final AsciiString X_CALL_ID = ProxyHeaders.X_CALL_ID;
    public static final AsciiString X_ATTEMPT = ProxyHeaders.X_ATTEMPT;
    public static final AsciiString X_ATTEMPTS = ProxyHeaders.X_ATTEMPTS;
    public static final AsciiString X_REQUEST_TIMEOUT_MS = ProxyHeaders.X_REQUEST_TIMEOUT_MS;
    public static final AsciiString IDEMPOTENT_REPLAYED = ProxyHeaders.IDEMPOTENT_REPLAYED;
    /** Retries the call's task has left in its window (docs/http-reference.md); never stored for replay. */
    public static final AsciiString X_RETRY_BUDGET_REMAINING = ProxyHeaders.X_RETRY_BUDGET_REMAINING;

    /** Adds X-Call-Id and X-Attempts to a response going to the client. */
    void decorate(HttpHeaders h, int attempts) {
        h.set(X_CALL_ID, callId);
        h.set(X_ATTEMPTS, ProxyHeaders.number(attempts));
    }
}
