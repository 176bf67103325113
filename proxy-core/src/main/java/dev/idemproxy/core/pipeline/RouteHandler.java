package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.call.CallLog;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.forward.ConnectTarget;
import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.problem.ProblemResponses;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.TargetBinder;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
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
 * {@code match.host} (CONTRACT §3); a route without upstream sends it to that target, over https
 * inside an interception or on a route that intercepts, else as its scheme says.
 * Ownership: discarded contents are released here; everything else is passed on.
 * Not thread-safe: one instance per channel.
 */
final class RouteHandler extends ChannelInboundHandlerAdapter {
    /** The route tag of calls that matched none. */
    static final String NO_ROUTE = "none";

    private final ServerState state;
    private final CallLog log;
    /** The intercepted CONNECT's target this connection's requests go to, or null for plain ones. */
    private final ConnectTarget intercepted;
    private final TargetBinder binder = new TargetBinder();
    private boolean discarding;

    RouteHandler(ServerState state, CallLog log) {
        this(state, log, null);
    }

    /** @param intercepted the target of the intercepted CONNECT this connection carries, or null */
    RouteHandler(ServerState state, CallLog log, ConnectTarget intercepted) {
        this.state = state;
        this.log = log;
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
        long start = System.nanoTime();
        RequestTarget target = RequestTarget.of(req.uri(), req.headers().get(HttpHeaderNames.HOST));
        if (target == null) {
            boolean close = ExpectContinue.bodyStillAwaited(req);
            refuse(req);
            log.finished(NO_ROUTE, CallOutcome.REJECTED, Problem.BAD_REQUEST.status(), start, null, null, null, 0, "bad_target");
            Answers.write(ctx, ProblemResponses.build(ctx.alloc(), Problem.BAD_REQUEST, RequestTarget.whyUnusable(req.uri()),
                    null), close);
            return;
        }
        String uri = req.uri();
        boolean absolute = intercepted == null && !uri.startsWith("/") && !uri.equals("*");
        String host = intercepted != null ? intercepted.host() : target.host();
        Optional<Route> route = intercepted != null || absolute
                ? state.routes().matchHostNamed(host, target.path(), req.method().name())
                : state.routes().match(host, target.path(), req.method().name());
        if (route.isEmpty()) {
            boolean close = ExpectContinue.bodyStillAwaited(req);
            refuse(req);
            log.finished(NO_ROUTE, CallOutcome.REJECTED, Problem.NO_ROUTE.status(), start, null, null, null, 0, "no_route");
            Answers.write(ctx, ProblemResponses.build(ctx.alloc(), Problem.NO_ROUTE,
                    "no route for " + req.method() + " " + (host == null ? "" : host) + target.path()
                            + (absolute || intercepted != null ? " (a request to a target matches only routes with match.host)" : ""),
                    null), close);
            return;
        }
        discarding = false;
        Route r = route.get();
        if (intercepted != null) {
            ctx.fireChannelRead(new ProxyCall(req, binder.bind(r, true, intercepted.port()), intercepted.hostHeader(),
                    target.pathAndQuery(), start));
            return;
        }
        if (r.forwardsToTarget()) {
            r = bindToTarget(r, uri, target.authority());
        }
        ctx.fireChannelRead(new ProxyCall(req, r, target.authority(), target.pathAndQuery(), start));
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

    /** A request refused here: a whole one is let go now, the contents of a streamed one as they come. */
    private void refuse(HttpRequest req) {
        if (req instanceof FullHttpRequest) {
            ReferenceCountUtil.release(req);
            discarding = false;
        } else {
            discarding = true;
        }
    }
}
