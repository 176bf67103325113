package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.call.CallIdentity;
import dev.idemproxy.core.call.CallLog;
import dev.idemproxy.core.call.CallSettlement;
import dev.idemproxy.core.call.ProxyCall;

/**
 * The log line (and count) of one protected call, written once the call has both settled (its
 * outcome known) and issued the last write of its answer (so that {@code out} counts every body
 * byte the client gets). The last write comes after the settlement, as the answer's end waits
 * for the call's record, except when a response is cut mid-body: the cut comes first. The line
 * goes out before that last write is flushed, so whoever reads the answer finds the line and the
 * count already there. Not thread-safe: used on the call's event loop.
 */
final class ProtectedCallLine {
    private final CallLog log;
    private final ProxyCall call;
    private final CallIdentity identity;
    private CallSettlement settlement;
    private boolean lastWrite;
    private boolean logged;

    ProtectedCallLine(CallLog log, ProxyCall call, CallIdentity identity) {
        this.log = log;
        this.call = call;
        this.identity = identity;
    }

    /** The call has settled. */
    void settled(CallSettlement s) {
        settlement = s;
        maybeLog();
    }

    /** The answer's last write is about to be issued, its bytes counted (or the answer was cut). */
    void lastWrite() {
        lastWrite = true;
        maybeLog();
    }

    private void maybeLog() {
        if (settlement == null || !lastWrite || logged) {
            return;
        }
        logged = true;
        log.finished(call, ForwardHandler.outcomeOf(settlement), settlement.finalStatus(), identity.callId(), identity.bizId(),
                identity.key(), settlement.attempts(), settlement.reason());
    }
}
