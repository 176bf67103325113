package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.call.CallDialect;
import dev.idemproxy.core.call.CallId;
import dev.idemproxy.core.call.CallIdentity;
import dev.idemproxy.core.call.CallPlan;
import dev.idemproxy.core.call.CallProtection;
import dev.idemproxy.core.call.CallServices;
import dev.idemproxy.core.call.ClaimAttempt;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.call.RecordedProtection;
import dev.idemproxy.core.call.ReplayAuthority;
import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.store.ClaimResult;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpResponse;

/**
 * The idempotency gate of a protected call: its dialect's planner gives its key, record and
 * fingerprint; a {@link ClaimAttempt} claims the record (asynchronously; the answer hops back to
 * this channel's loop); then the call is passed on holding the claim, or answered here with the
 * stored response (a replay), or with 400/409/422/503. A DLQ replay proven by the admin API
 * ({@link ReplayAuthority}) is resolved here, once, and claims under its original record.
 * Ownership: a call answered here has its body released here; a call passed on keeps it.
 * Not thread-safe: one instance per channel.
 */
final class IdempotencyHandler extends ChannelInboundHandlerAdapter implements ClaimAttempt.Outcome {
    private final CallServices services;
    private ChannelHandlerContext ctx;
    /** The planner of the connection's last dialect: it remembers the connection's credentials and last body. */
    private CallDialect plannerOf;
    private CallDialect.Planner planner;
    private ClaimAttempt claim;

    IdempotencyHandler(CallServices services) {
        this.services = services;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ProxyCall) {
            ProxyCall c = (ProxyCall) msg;
            if (c.body() != null && c.route().idempotency().protects(c.request().method().name()) && services.records() != null) {
                gate(c);
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }

    private void gate(ProxyCall c) {
        NettyRequestView view = new NettyRequestView(c);
        ReplayAuthority.Replay replay = services.replays().take(c.request());
        CallPlan plan;
        String callId;
        if (replay != null && replay.record() != null && replay.record().route().equals(c.route().name())) {
            // Re-run as itself: its stored request lost its secrets, so its scope could not be computed again.
            plan = planner(c.dialect()).planReplay(c, view, replay.record());
            callId = replay.callId();
        } else {
            plan = planner(c.dialect()).plan(c, view);
            if (plan.rejected()) {
                answer(c, plan.problem(), plan.detail(), null, null, null);
                return;
            }
            callId = replay != null ? replay.callId() : CallId.next();
        }
        CallIdentity identity = new CallIdentity(callId, c.route().idempotency().key().header(), plan.headerValue(),
                services.taskId(c.request()), services.bizId(c, view));
        claim = new ClaimAttempt(services, ctx.channel().eventLoop(), c, plan, identity,
                ReplayAuthority.createdAt(replay, services.recorder().now()), this);
        claim.start();
    }

    private CallDialect.Planner planner(CallDialect dialect) {
        if (dialect != plannerOf) {
            plannerOf = dialect;
            planner = dialect.planner(services.random());
        }
        return planner;
    }

    @Override
    public void claimed(ClaimAttempt a, RecordedProtection protection) {
        claim = null;
        a.call().protection(protection);
        ctx.fireChannelRead(a.call());
    }

    @Override
    public void unprotected(ClaimAttempt a, CallProtection protection) {
        claim = null;
        a.call().protection(protection);
        ctx.fireChannelRead(a.call());
    }

    @Override
    public void completed(ClaimAttempt a, ClaimResult.Completed done) {
        claim = null;
        ProxyCall c = a.call();
        c.releaseBody();
        FullHttpResponse replayed = c.dialect().replay(ctx.alloc(), c, done.response(), done.callId(), done.attempts());
        c.addBytesOut(replayed.content().readableBytes());
        services.log().finished(c, CallOutcome.REPLAYED, done.response().status(), done.callId(), a.identity().bizId(),
                a.identity().key(), done.attempts(), null);
        ctx.writeAndFlush(replayed);
    }

    @Override
    public void refused(ClaimAttempt a, Problem problem, String detail, String callId) {
        claim = null;
        answer(a.call(), problem, detail, callId, a.identity().bizId(), a.identity().key());
    }

    /** Answers the call with a problem, after its line (rejected, with the problem's name as reason). */
    private void answer(ProxyCall c, Problem problem, String detail, String callId, String bizId, String key) {
        c.releaseBody();
        FullHttpResponse resp = c.dialect().problem(ctx.alloc(), c, problem, detail, callId);
        c.addBytesOut(resp.content().readableBytes());
        services.log().finished(c, CallOutcome.REJECTED, problem.status(), callId, bizId, key, 0, problem.spelling());
        ctx.writeAndFlush(resp);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        ClaimAttempt a = claim;
        if (a != null) {
            claim = null;
            a.abandon();
            a.call().releaseBody();
        }
        ctx.fireChannelInactive();
    }
}
