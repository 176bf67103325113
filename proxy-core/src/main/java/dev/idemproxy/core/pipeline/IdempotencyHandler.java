package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.call.CallDialect;
import dev.idemproxy.core.call.CallIdentity;
import dev.idemproxy.core.call.CallPlan;
import dev.idemproxy.core.call.CallProtection;
import dev.idemproxy.core.call.CallServices;
import dev.idemproxy.core.call.ClaimAttempt;
import dev.idemproxy.core.call.OnLoop;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.call.RecordedProtection;
import dev.idemproxy.core.call.ReplayAuthority;
import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.util.Mistakes;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpResponse;

/**
 * The gate of a buffered call its dialect plans ({@link CallDialect#gated}): the dialect's
 * planner says what the call is ({@link CallPlan}). A protected call's record is claimed by a
 * {@link ClaimAttempt} (asynchronously; the answer hops back to this channel's loop); then the
 * call is passed on holding the claim, or answered here with the stored response (a replay), or
 * with 400/409/422/503. A rejected call gets its problem, a call the planner answered (an
 * unreadable MCP message, a held-back cancellation) its answer; a call to pass through is passed
 * on unprotected (when its plan says, once a condition holds: an MCP session's DELETE waits for
 * the session's protected calls), as is a protected call when there is no store. A DLQ replay proven by the
 * admin API ({@link ReplayAuthority}) is resolved here, once, and claims under its original
 * record ({@link ConnectionPlanner}). Ownership: a call answered here has its body released here; a call passed on keeps it.
 * Not thread-safe: one instance per channel.
 */
final class IdempotencyHandler extends ChannelInboundHandlerAdapter implements ClaimAttempt.Outcome {
    private final CallServices services;
    private ChannelHandlerContext ctx;
    private final ConnectionPlanner planning;
    private ClaimAttempt claim;
    /** A call to pass through once its plan's condition holds (an MCP session's DELETE); null when none. */
    private ProxyCall waiting;

    IdempotencyHandler(CallServices services) {
        this.services = services;
        this.planning = new ConnectionPlanner(services);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ProxyCall) {
            ProxyCall c = (ProxyCall) msg;
            if (c.body() != null && c.dialect().gated(c, services.records() != null)) {
                gate(c);
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }

    private void gate(ProxyCall c) {
        NettyRequestView view = new NettyRequestView(c);
        ConnectionPlanner.Planned planned = planning.plan(c, view);
        CallPlan plan = planned.plan();
        c.plan(plan);
        switch (plan.kind()) {
            case REJECT:
                answer(c, plan.problem(), plan.detail(), null, null, null);
                return;
            case ANSWER:
                c.releaseBody();
                FullHttpResponse ready = plan.answer().response(ctx.alloc());
                c.addBytesOut(ready.content().readableBytes());
                services.log().finished(c, CallOutcome.REJECTED, plan.answer().status(), null, null, null, 0, plan.answer().reason());
                ctx.writeAndFlush(ready);
                return;
            case PASS:
                if (plan.forwardAfter() != null) {
                    passAfter(c, plan.forwardAfter());
                    return;
                }
                ctx.fireChannelRead(c);
                return;
            default:
                c.startInDialect();
                if (services.records() == null) {
                    ctx.fireChannelRead(c);  // no records can be kept: forwarded as a protected call without one
                    return;
                }
        }
        CallIdentity identity = new CallIdentity(planned.callId(), c.route().idempotency().key().header(), plan.headerValue(),
                services.taskId(c.request()), services.bizId(c, view));
        claim = new ClaimAttempt(services, ctx.channel().eventLoop(), c, plan, identity,
                ReplayAuthority.createdAt(planned.replay(), services.recorder().now()), this);
        claim.start();
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
        if (services.mistakes().has(Mistakes.Mistake.ANSWER_TWICE)) {  // planted only: a refused call passed on as well
            ctx.fireChannelRead(a.call());
        }
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
        if (waiting != null) {
            waiting.releaseBody();  // its client left before it was forwarded: it is not
            waiting = null;
        }
        ClaimAttempt a = claim;
        if (a != null) {
            claim = null;
            a.abandon();
            a.call().releaseBody();
        }
        ctx.fireChannelInactive();
    }
}
