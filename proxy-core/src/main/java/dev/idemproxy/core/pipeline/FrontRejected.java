package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.metrics.FrontRejection;

/**
 * A user event fired down the client pipeline when the front refuses the request being read
 * after its head went on: a body that fails to decode (the guard), a body too slow (the timeout
 * handler). The handler holding a call for that request (buffering or streaming its body) ends
 * the call, logs its line under its route and marks the event {@linkplain #own owned}; otherwise
 * {@link FrontRejections} logs it. So a refused request has exactly one call-log line.
 * Not thread-safe: made and used on one event loop.
 */
final class FrontRejected {
    final FrontRejection reason;
    /** The status the client is answered with, or 0 when a response to the request had already started. */
    final int status;
    private boolean owned;

    FrontRejected(FrontRejection reason, int status) {
        this.reason = reason;
        this.status = status;
    }

    /** Called by the handler that ended the request's call and logged it. */
    void own() {
        owned = true;
    }

    boolean owned() {
        return owned;
    }
}
