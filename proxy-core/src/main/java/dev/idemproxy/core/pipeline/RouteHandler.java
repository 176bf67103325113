package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.call.CallLog;
import dev.idemproxy.core.call.CallServices;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.forward.ConnectTarget;
import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.metrics.InFlightCalls;
import dev.idemproxy.core.metrics.FrontRejection;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.problem.ProblemResponses;
import dev.idemproxy.core.route.Route;
import io.netty.channel.ChannelDuplexHandler;
import dev.idemproxy.core.route.TargetBinder;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.Optional;

/**
 * Matches a request head against the live route table, before any body is read, on its
 * {@linkplain RequestTarget normalised} path. A match becomes a {@link ProxyCall} passed on in
 * place of the head, carrying the normalised target for the upstream. No match is answered 404
 * {@code no-route}, a target of no usable form or with a malformed escape in its path 400
 * {@code bad-request}, and the request body is discarded (a request the decoder read whole, a
 * {@link FullHttpRequest}, is let go at once).
 *
 * <p>A request addressed to a target (absolute-form, HTTP_PROXY style, or any request inside an
 * intercepted CONNECT, whose host is the CONNECT's) matches only routes that name
 * {@code match.host}; a route without upstream sends it to that target, over https inside an
 * interception or on a route that intercepts, else as its scheme says.
 *
 * <p>The call it makes counts in its route's {@code idemproxy_in_flight} until it ends: when its
 * response's last write passes here on its way out, or when the connection closes under it, unless
 * it {@linkplain ProxyCall#outlivesClient() runs on without its client} (its runner ends it then).
 * Requests come one at a time ({@link RequestSequencer}), so a connection has one such call.
 * Ownership: discarded contents are released here; everything else is passed on. Not
 * thread-safe: one instance per channel.
 */
final class RouteHandler extends ChannelDuplexHandler {
    /** The route tag of calls that matched none. */
    static final String NO_ROUTE = "none";

    private final ServerState state;
    private final CallServices services;
    private final CallLog log;
    /** The intercepted CONNECT's target this connection's requests go to, or null for plain ones. */
    private final ConnectTarget intercepted;
    private final TargetBinder binder = new TargetBinder();
    private boolean discarding;
    /** The call of this connection being served, until its response ends; null when none. */
    private ProxyCall current;
    /** The in-flight count of the last route seen here, so a connection's calls ask the metrics once per route. */
    private Route countedRoute;
    private InFlightCalls countedCalls;

    /** @param intercepted the target of the intercepted CONNECT this connection carries, or null */
    RouteHandler(ServerState state, CallServices services, ConnectTarget intercepted) {
        this.state = state;
        this.services = services;
        this.log = services.log();
        this.intercepted = intercepted;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest) {
            route(ctx, (HttpRequest) msg);
            return;
        }
        if (discarding && msg instanceof HttpContent) {
            discarding = !(msg instanceof LastHttpContent);
            ReferenceCountUtil.release(msg);
            return;
        }
        ctx.fireChannelRead(msg);
    }

    private void route(ChannelHandlerContext ctx, HttpRequest req) {
        long start = services.ticker().nanos();
        RequestTarget target = RequestTarget.of(req.uri(), req.headers().get(HttpHeaderNames.HOST));
        if (target == null) {
            log.metrics().frontRejection(FrontRejection.MALFORMED);
            refuse(ctx, req, start, req.uri(), Problem.BAD_REQUEST, RequestTarget.whyUnusable(req.uri()), "bad_target");
            return;
        }
        String uri = req.uri();
        boolean absolute = intercepted == null && !uri.startsWith("/") && !uri.equals("*");
        String host = intercepted != null ? intercepted.host() : target.host();
        Optional<Route> route = intercepted != null || absolute
                ? state.routes().matchHostNamed(host, target.path(), req.method().name())
                : state.routes().match(host, target.path(), req.method().name());
        if (route.isEmpty()) {
            String detail = "no route for " + req.method() + " " + (host == null ? "" : host) + target.path()
                    + (absolute || intercepted != null ? " (a request to a target matches only routes with match.host)" : "");
            refuse(ctx, req, start, target.pathAndQuery(), Problem.NO_ROUTE, detail, "no_route");
            return;
        }
        discarding = false;
        Route r = route.get();
        String authority = target.authority();
        if (intercepted != null) {
            r = binder.bind(r, true, intercepted.port());
            authority = intercepted.hostHeader();
        } else if (r.forwardsToTarget()) {
            r = bindToTarget(r, uri, target.authority());
        }
        ProxyCall call = new ProxyCall(req, r, services.dialect(r), authority, target.pathAndQuery(), start);
        if (intercepted != null) {
            call.cameOverTls();
        }
        call.countIn(inFlightOf(r));
        current = call;
        ctx.fireChannelRead(call);
    }

    /**
     * A route without upstream, bound to the origin the request names: https for an
     * {@code https://} target or a route that intercepts (a DLQ replay of an intercepted call comes
     * as {@code http://}), else http; the port the authority names, else the scheme's.
     */
    private Route bindToTarget(Route r, String uri, String authority) {
        boolean tls = r.intercept() || uri.regionMatches(true, 0, "https://", 0, 8);
        int port = TargetBinder.portOf(authority);
        if (port < 0 || (tls && port == 80 && !uri.regionMatches(true, 0, "https://", 0, 8))) {
            port = tls ? 443 : 80;
        }
        return binder.bind(r, tls, port);
    }

    private InFlightCalls inFlightOf(Route route) {
        if (route != countedRoute) {
            countedRoute = route;
            countedCalls = log.metrics().inFlight(route.name());
        }
        return countedCalls;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (current != null && ExchangeTracker.endsResponse(msg)) {
            // The call ends once its answer's end is written, not as it passes here: what waits
            // for the call's end (an MCP session's held DELETE, a drain) must come after its answer.
            ProxyCall ending = current;
            current = null;
            ctx.write(msg, promise.unvoid()).addListener(written -> ending.end());
            return;
        }
        ctx.write(msg, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (current != null && !current.outlivesClient()) {
            current.end();
        }
        current = null;
        ctx.fireChannelInactive();
    }

    /** Answers {@code problem} to a request refused here, after its line ({@code target}: what the line's path shows). */
    private void refuse(ChannelHandlerContext ctx, HttpRequest req, long start, String target, Problem problem, String detail,
            String reason) {
        boolean close = ExpectContinue.bodyStillAwaited(req);
        letGo(req);
        FullHttpResponse resp = ProblemResponses.build(ctx.alloc(), problem, detail, null);
        log.refused(NO_ROUTE, CallOutcome.REJECTED, problem.status(), start, req.method().name(), target,
                resp.content().readableBytes(), reason);
        Answers.write(ctx, resp, close);
    }

    /** A request refused here: a whole one is let go now, the contents of a streamed one as they come. */
    private void letGo(HttpRequest req) {
        if (req instanceof FullHttpRequest) {
            ReferenceCountUtil.release(req);
            discarding = false;
        } else {
            discarding = true;
        }
    }
}
