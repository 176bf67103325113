package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.call.CallDialect;
import dev.idemproxy.core.call.CallId;
import dev.idemproxy.core.call.CallPlan;
import dev.idemproxy.core.call.CallServices;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.call.ReplayAuthority;

/**
 * The gate's planning of a connection's calls: the planner of the connection's last dialect
 * (kept while its calls share one, as it remembers their credentials and last body), and a DLQ
 * replay proven by the admin API ({@link ReplayAuthority}), resolved here once: it keeps its
 * original call id and re-runs under its original record. Not thread-safe: one per channel.
 */
final class ConnectionPlanner {
    /** A call's plan, the call id it runs under, and its DLQ replay's proof (null for any other call). */
    record Planned(CallPlan plan, String callId, ReplayAuthority.Replay replay) {}

    private final CallServices services;
    private CallDialect plannerOf;
    private CallDialect.Planner planner;

    ConnectionPlanner(CallServices services) {
        this.services = services;
    }

    Planned plan(ProxyCall c, NettyRequestView view) {
        ReplayAuthority.Replay replay = services.replays().take(c.request());
        if (replay != null && replay.record() != null && replay.record().route().equals(c.route().name())) {
            // Re-run as itself: its stored request lost its secrets, so its scope could not be computed again.
            return new Planned(planner(c.dialect()).planReplay(c, view, replay.record()), replay.callId(), replay);
        }
        return new Planned(planner(c.dialect()).plan(c, view), replay != null ? replay.callId() : CallId.next(), replay);
    }

    private CallDialect.Planner planner(CallDialect dialect) {
        if (dialect != plannerOf) {
            plannerOf = dialect;
            planner = dialect.planner(services.random());
        }
        return planner;
    }
}
