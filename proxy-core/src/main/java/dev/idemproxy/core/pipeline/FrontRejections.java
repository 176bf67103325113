package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.util.LogThrottle;
import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.call.CallLog;
import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.metrics.FrontRejection;
import io.netty.channel.ChannelHandlerContext;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accounts for what the front refuses: counts it in {@code idemproxy_front_rejections_total},
 * has each refused request logged exactly once ({@code outcome=rejected} with its status), and
 * writes at most one line per 10 s about connections refused over {@code limits.maxConnections}
 * (they carry no request). This class is thread-safe: one instance per server.
 */
final class FrontRejections {
    private static final Logger LOG = LoggerFactory.getLogger(FrontRejections.class);

    private final CallLog log;
    private final int maxConnections;
    private final LogThrottle refusedConnections;
    private final Ticker ticker;

    /** @param ticker the call log's: a refused request's start is taken from it ({@link #now}) */
    FrontRejections(CallLog log, int maxConnections, Ticker ticker) {
        this.log = log;
        this.ticker = ticker;
        this.maxConnections = maxConnections;
        this.refusedConnections = new LogThrottle(Duration.ofSeconds(10), ticker);
    }

    /**
     * The request being read is refused with {@code status} (0: a response to it had started, so
     * the connection is only closed). Announced down the pipeline as {@link FrontRejected} from
     * {@code ctx}, so the handler holding its call ends that call and logs it; logged here under
     * route {@value RouteHandler#NO_ROUTE} when none did and there is a status to log.
     *
     * @param startNanos when the request began, on {@link #now}'s scale (for {@code ms=})
     */
    void request(ChannelHandlerContext ctx, FrontRejection reason, int status, long startNanos) {
        log.metrics().frontRejection(reason);
        FrontRejected event = new FrontRejected(reason, status);
        ctx.fireUserEventTriggered(event);
        if (!event.owned() && status != 0) {
            log.finished(RouteHandler.NO_ROUTE, CallOutcome.REJECTED, status, startNanos, null, null, null, 0, reason.spelling());
        }
    }

    /** Now, on the call log's ticker. */
    long now() {
        return ticker.nanos();
    }

    /** A refusal with no request to log (a new connection that never sent a byte). */
    void counted(FrontRejection reason) {
        log.metrics().frontRejection(reason);
    }

    /** A connection over {@code maxConnections}, closed as it was accepted. */
    void connectionRefused() {
        log.metrics().frontRejection(FrontRejection.MAX_CONNECTIONS);
        long held = refusedConnections.pass();
        if (held >= 0) {
            LOG.warn("closed a new client connection: {} are open (limits.maxConnections){}", maxConnections,
                    LogThrottle.more(held));
        }
    }

    CallLog log() {
        return log;
    }
}
