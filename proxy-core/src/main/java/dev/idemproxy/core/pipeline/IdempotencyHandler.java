package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.call.CallDialect;
import dev.idemproxy.core.call.CallIdentity;
import dev.idemproxy.core.call.CallPlan;
import dev.idemproxy.core.call.CallServices;
import dev.idemproxy.core.call.ProtectedCall;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.call.ReplayAuthority;
import dev.idemproxy.core.metrics.CallOutcome;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpResponse;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The gate, and the home of the connection's protected call. A buffered call its dialect plans
 * ({@link CallDialect#gated}) gets its {@link CallPlan}: a protected one becomes a
 * {@link ProtectedCall} that claims its record and, unless it is answered from the store or
 * refused, forwards; a rejected call gets its problem, a call the planner answered (an unreadable
 * MCP message, a held-back cancellation) its answer; a call to pass through is passed on
 * unprotected (when its plan says, once a condition holds: an MCP session's DELETE waits for the
 * session's protected calls). A buffered call the gate does not plan (a retry-only route, no
 * store) is a protected call without a record. A DLQ replay proven by the admin API
 * ({@link ReplayAuthority}) is resolved once ({@link ConnectionPlanner}) and runs as itself.
 * The connection's drain and close reach its protected call here. Ownership: a call answered or
 * protected here has its body released by it; a call passed on keeps it. Not thread-safe: one
 * instance per channel.
 */
final class IdempotencyHandler extends ChannelInboundHandlerAdapter {
    private final CallServices services;
    private final ServerState state;
    private final ConnectionPlanner planning;
    private ChannelHandlerContext ctx;
    /** The connection's protected call; null before the first (requests come one at a time). */
    private ProtectedCall active;
    /** A call to pass through once its plan's condition holds (an MCP session's DELETE); null when none. */
    private ProxyCall waiting;
    private String clientIp;

    IdempotencyHandler(CallServices services, ServerState state) {
        this.services = services;
        this.state = state;
        this.planning = new ConnectionPlanner(services);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ProxyCall c && c.body() != null) {
            if (c.dialect().gated(c, services.records() != null)) {
                gate(c);
            } else {
                unrecorded(c);
            }
            return;
        }
        ctx.fireChannelRead(msg);
    }

    private void gate(ProxyCall c) {
        NettyRequestView view = new NettyRequestView(c);
        ConnectionPlanner.Planned planned = planning.plan(c, view);
        CallPlan plan = planned.plan();
        c.plan(plan);
        if (plan instanceof CallPlan.Reject r) {
            c.releaseBody();
            FullHttpResponse resp = c.dialect().problem(ctx.alloc(), c, r.problem(), r.detail(), null);
            c.addBytesOut(resp.content().readableBytes());
            services.log().finished(c, CallOutcome.REJECTED, r.problem().status(), null, null, null, 0, r.problem().spelling());
            ctx.writeAndFlush(resp);
        } else if (plan instanceof CallPlan.Answer a) {
            c.releaseBody();
            FullHttpResponse ready = a.answer().response(ctx.alloc());
            c.addBytesOut(ready.content().readableBytes());
            services.log().finished(c, CallOutcome.REJECTED, a.answer().status(), null, null, null, 0, a.answer().reason());
            ctx.writeAndFlush(ready);
        } else if (plan instanceof CallPlan.Pass p) {
            if (p.after() != null) {
                passAfter(c, p.after());
            } else {
                ctx.fireChannelRead(c);
            }
        } else {
            c.startInDialect();
            if (services.records() == null) {
                unrecorded(c);  // no records can be kept: a protected call without one
                return;
            }
            CallIdentity identity = new CallIdentity(planned.callId(), c.route().idempotency().key().header(),
                    ((CallPlan.Protect) plan).headerValue(), services.taskId(c.request()), services.bizId(c, view));
            run(ProtectedCall.recorded(c, (CallPlan.Protect) plan, identity,
                    ReplayAuthority.createdAt(planned.replay(), services.recorder().now()), services, leg(c)));
        }
    }

    /** A protected call without a record: it takes its DLQ replay's proof here, and forwards at once. */
    private void unrecorded(ProxyCall c) {
        ReplayAuthority.Replay replay = services.replays().take(c.request());
        CallIdentity identity = services.unrecordedIdentity(c, services.bizId(c, new NettyRequestView(c)), replay);
        run(ProtectedCall.unrecorded(c, identity, ReplayAuthority.createdAt(replay, services.recorder().now()), services, leg(c)));
    }

    private void run(ProtectedCall call) {
        active = call;
        call.start();
    }

    private ClientLeg leg(ProxyCall c) {
        return new ClientLeg(ctx, c, state, clientIp());
    }

    /** Forwards {@code c} once {@code after} completes (on this loop), unless its client has left by then. */
    private void passAfter(ProxyCall c, java.util.concurrent.CompletionStage<?> after) {
        waiting = c;
        OnLoop.then(after, ctx.channel().eventLoop(), (v, err) -> {
            if (waiting == c) {
                waiting = null;
                ctx.fireChannelRead(c);
            }
        });
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (active != null && !active.over() && ctx.channel().isWritable()) {
            active.clientWritable();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (waiting != null) {
            waiting.releaseBody();  // its client left before it was forwarded: it is not
            waiting = null;
        }
        if (active != null && !active.over()) {
            active.clientGone();  // not yet forwarded: abandoned; forwarded: it runs to its end
        }
        ctx.fireChannelInactive();
    }

    private String clientIp() {
        if (clientIp == null) {
            SocketAddress a = ctx.channel().remoteAddress();
            clientIp = a instanceof InetSocketAddress ? ((InetSocketAddress) a).getAddress().getHostAddress() : "unknown";
        }
        return clientIp;
    }
}
