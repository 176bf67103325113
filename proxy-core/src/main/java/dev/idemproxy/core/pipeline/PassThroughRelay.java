package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.call.CallServices;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.problem.ProblemResponses;
import dev.idemproxy.core.upstream.MalformedResponseException;
import dev.idemproxy.core.upstream.UpstreamConnection;
import dev.idemproxy.core.upstream.UpstreamListener;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import dev.idemproxy.core.call.ResponseObserver;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import dev.idemproxy.core.call.CallPlan;
import java.util.ArrayDeque;

/**
 * The request and response legs of a pass-through call (no idempotency, no retries): streams the
 * request to its upstream and the response back, both ways with back-pressure: when the far side
 * cannot keep up, reading from the near side pauses. The upstream connection shares the client
 * channel's event loop, so every callback runs on one thread and no state needs locking. The
 * response head must arrive within min(perTry, total) of the request's end ({@link HeadTimer});
 * after that only the idle timeout applies, so long streams (SSE) live on.
 *
 * <p>A call whose body was buffered (an MCP message its plan passes through) goes upstream as
 * its head and that body in one write, and its plan's {@link ResponseObserver}, if any, reads the
 * answer as it passes (an MCP {@code tools/list} feeding the route's tool catalogue).
 *
 * <p>Ownership: request contents (a buffered body too) are written upstream (which releases them)
 * or released here; response contents are written to the client. One instance per client channel, reused call after
 * call. Not thread-safe: runs on the client channel's event loop.
 */
final class PassThroughRelay implements UpstreamListener {
    private final ChannelHandlerContext ctx;
    private final CallServices services;
    private final ServerState state;
    private final HeadTimer headTimer;
    private final ArrayDeque<HttpContent> pending = new ArrayDeque<>();

    private ProxyCall call;
    private long callSeq;
    private UpstreamConnection conn;
    private PassThroughPhase phase = PassThroughPhase.IDLE;
    private boolean upstreamWantsClose;
    /** Whether the call ended unsuccessfully (its log line says so). */
    private boolean failed;
    private int status;
    /** Reads the call's answer as it passes; null when nothing does. */
    private ResponseObserver observer;
    /** The request's head to write upstream: the client's, or a new one ahead of a buffered body. */
    private HttpRequest head;
    private final UpstreamHead upstreamHead = new UpstreamHead();

    PassThroughRelay(ChannelHandlerContext ctx, CallServices services, ServerState state) {
        this.ctx = ctx;
        this.services = services;
        this.state = state;
        this.headTimer = new HeadTimer(ctx.executor(), services.ticker(), this::onHeadTimeout);
    }

    void start(ProxyCall c, String clientIp) {
        status = 0;
        failed = false;
        call = c;
        long seq = ++callSeq;
        observer = c.plan() instanceof CallPlan.Pass p ? p.observer() : null;
        head = c.request();
        if (c.body() != null) {
            head = UpstreamHead.buffered(c);
        }
        // a request read whole (no body, or all of it in one read) comes as one FullHttpRequest
        phase = head instanceof LastHttpContent || c.body() != null ? PassThroughPhase.AWAITING_HEAD : PassThroughPhase.SENDING;
        if (head instanceof HttpContent) {
            c.addBytesIn(((HttpContent) head).content().readableBytes());
        }
        if (c.body() != null) {
            pending.add(new DefaultLastHttpContent(c.takeBody()));
        }
        if (phase.requestDone()) {
            headTimer.start(seq, c.route().timeouts());
        }
        upstreamWantsClose = false;
        state.callStarted();
        UpstreamConnection pooled = services.upstreams().tryPooled(c.route(), ctx.channel().eventLoop(), this);
        if (pooled != null) {
            connected(pooled, true, clientIp);
            return;
        }
        ctx.channel().config().setAutoRead(false);
        OnLoop.then(services.upstreams().acquire(c.route(), ctx.channel().eventLoop(), this), ctx.executor(),
                (conn, failure) -> onAcquired(seq, conn, failure, clientIp));
    }

    private void onAcquired(long seq, UpstreamConnection leased, Throwable failure, String clientIp) {
        if (seq != callSeq || call == null) {
            if (leased != null) {
                leased.release(false);
            }
            return;
        }
        if (failure != null) {
            fail(Problem.UPSTREAM_UNREACHABLE, MalformedResponseException.describe(failure));
            return;
        }
        connected(leased, false, clientIp);
    }

    /**
     * Sends the head (and any body that waited for the connection). Called while the head's read
     * is being handled ({@code inRead}), the flush is left to the end of the request
     * ({@link #clientContent}) or of the read ({@link #readComplete}), whichever comes first, so a
     * request that arrived in one read goes upstream in one write.
     */
    private void connected(UpstreamConnection leased, boolean inRead, String clientIp) {
        conn = leased;
        upstreamHead.rewrite(head, call, clientIp);
        Channel up = conn.channel();
        // Void promises: a failed upstream write fires exceptionCaught there, which ends the call.
        up.write(head, up.voidPromise());
        HttpContent c;
        while ((c = pending.poll()) != null) {
            up.write(c, up.voidPromise());
        }
        if (!inRead || phase.requestDone()) {
            up.flush();
        }
        if (!phase.requestDone()) {
            ctx.channel().config().setAutoRead(conn.channel().isWritable());
        }
    }

    void clientContent(HttpContent c) {
        if (call == null || phase == PassThroughPhase.DISCARDING) {
            if (c instanceof LastHttpContent && phase == PassThroughPhase.DISCARDING) {
                phase = PassThroughPhase.IDLE;
                ctx.channel().config().setAutoRead(true);
            }
            c.release();
            return;
        }
        call.addBytesIn(c.content().readableBytes());
        boolean last = c instanceof LastHttpContent;
        if (last) {
            phase = phase == PassThroughPhase.ANSWERING_WHILE_SENDING ? PassThroughPhase.ANSWERING : PassThroughPhase.AWAITING_HEAD;
            headTimer.start(callSeq, call.route().timeouts());
        }
        if (conn == null) {
            pending.add(c);
            return;
        }
        conn.channel().write(c, conn.channel().voidPromise());
        if (last) {
            conn.channel().flush();
        } else if (!conn.channel().isWritable()) {
            // Pause first: the flush may drain the buffer and fire writable again, which resumes.
            ctx.channel().config().setAutoRead(false);
            conn.channel().flush();
        }
    }

    void readComplete() {
        if (conn != null) {
            conn.channel().flush();
        }
    }

    @Override
    public void onResponseHead(HttpResponse resp) {
        if (call == null) {
            return;
        }
        toClient(resp);
        if (observer != null) {
            observer.head(resp);
        }
        ctx.write(resp, ctx.voidPromise());
    }

    /** The response has started: its head is made the client's (written by the caller). */
    private void toClient(HttpResponse resp) {
        headTimer.cancel();
        phase = phase.requestDone() ? PassThroughPhase.ANSWERING : PassThroughPhase.ANSWERING_WHILE_SENDING;
        status = resp.status().code();
        upstreamWantsClose = !HttpUtil.isKeepAlive(resp);
        HeaderRewrite.toClient(resp, call.request().method(), call.clientVersion(), state.draining());
    }

    /** A response read whole goes to the client as one message: one pass through the pipeline, one buffer. */
    @Override
    public void onFullResponse(HttpResponse head, LastHttpContent last) {
        if (call == null) {
            last.release();
            return;
        }
        toClient(head);
        call.addBytesOut(last.content().readableBytes());
        if (observer != null) {
            observer.head(head);
            observer.content(last.content(), true);
        }
        ctx.write(new DefaultFullHttpResponse(head.protocolVersion(), head.status(), last.content(), head.headers(),
                last.trailingHeaders()), ctx.voidPromise());
        ctx.flush();
        answered();
    }

    @Override
    public void onResponseContent(HttpContent content) {
        if (call == null || !phase.answering()) {
            content.release();
            return;
        }
        boolean last = content instanceof LastHttpContent;
        call.addBytesOut(content.content().readableBytes());
        if (observer != null) {
            observer.content(content.content(), last);
        }
        ctx.write(content, ctx.voidPromise());
        if (last) {
            ctx.flush();
            answered();
        } else if (!ctx.channel().isWritable()) {
            // Pause first: the flush may drain the buffer and fire writable again, which resumes.
            conn.channel().config().setAutoRead(false);
            ctx.flush();
        }
    }

    @Override
    public void onReadComplete() {
        ctx.flush();
    }

    @Override
    public void onWritabilityChanged(boolean writable) {
        if (call != null && !phase.requestDone() && conn != null) {
            ctx.channel().config().setAutoRead(writable);
        }
    }

    /** The client's writability changed: the response's reading follows it. */
    void clientWritabilityChanged(boolean writable) {
        if (conn != null && phase.answering()) {
            conn.channel().config().setAutoRead(writable);
        }
    }

    @Override
    public void onUpstreamClosed(Throwable cause) {
        if (call == null) {
            return;
        }
        conn = null;
        if (!phase.answering()) {
            fail(Problem.UPSTREAM_RESET, cause instanceof MalformedResponseException ? cause.getMessage()
                    : "the upstream closed the connection before answering" + (cause == null ? "" : ": " + MalformedResponseException.describe(cause)));
        } else {
            abort();
        }
    }

    @Override
    public void onUpstreamIdle() {
        if (call != null && (phase.answering() || !phase.requestDone())) {
            abort();
        }
    }

    /** No response head within min(perTry, total) of the request's end. */
    private void onHeadTimeout(long seq, boolean totalExpired) {
        if (seq != callSeq || call == null || phase.answering()) {
            return;
        }
        var t = call.route().timeouts();
        boolean sent = conn != null;
        Problem p = sent && !totalExpired ? Problem.AMBIGUOUS_OUTCOME : Problem.DEADLINE_EXCEEDED;
        fail(p, "no response head from the upstream within " + Math.min(t.perTry().toMillis(), t.total().toMillis()) + " ms");
    }

    /** Ends the call with a proxy-made answer; the response has not started. */
    private void fail(Problem problem, String detail) {
        status = problem.status();
        failed = true;
        releaseUpstream(false);
        FullHttpResponse resp = ProblemResponses.build(ctx.alloc(), problem, detail, null);
        if (call != null) {
            call.addBytesOut(resp.content().readableBytes());
        }
        boolean close = !phase.requestDone() || state.draining();
        releasePending();
        endCall();
        Answers.write(ctx, resp, close);
    }

    /** Cuts both connections: a response was under way and cannot be completed. */
    private void abort() {
        failed = true;
        releaseUpstream(false);
        releasePending();
        endCall();
        ctx.close();
    }

    /** The answer's last piece went to the client: the call ends (the rest of a request still streaming is dropped). */
    private void answered() {
        boolean requestDone = phase.requestDone();
        releaseUpstream(requestDone && !upstreamWantsClose);
        endCall();
        if (!requestDone) {
            phase = PassThroughPhase.DISCARDING;  // the upstream answered before the request ended: stop sending, drop the rest
        }
        ctx.channel().config().setAutoRead(true);
    }

    private void releaseUpstream(boolean reusable) {
        UpstreamConnection c = conn;
        conn = null;
        if (c != null) {
            c.release(reusable);
        }
    }

    private void endCall() {
        headTimer.cancel();
        phase = PassThroughPhase.IDLE;
        if (call != null) {
            ProxyCall c = call;
            call = null;
            observer = null;
            head = null;
            state.callEnded();
            services.log().passedThrough(c, failed, status);
        }
    }

    /**
     * The front refused the request whose body this call is still streaming upstream: the upstream
     * request is cut off and the call ends, logged as refused with the status the client gets, or
     * as failed when its response had started already.
     */
    void frontRejected(FrontRejected r) {
        if (call == null || phase.requestDone()) {
            return;
        }
        ProxyCall c = call;
        failed = true;
        releaseUpstream(false);
        releasePending();
        if (phase.answering()) {
            endCall();
        } else {
            call = null;
            phase = PassThroughPhase.IDLE;
            headTimer.cancel();
            state.callEnded();
            services.log().finished(c, CallOutcome.REJECTED, r.status, null, null, null, 0, r.reason.spelling());
        }
        r.own();
    }

    /** The client went away: a call under way ends, its upstream connection closed. */
    void clientGone() {
        if (call != null) {
            releaseUpstream(false);
            endCall();
        }
        headTimer.stop();
        releasePending();
    }

    void releasePending() {
        HttpContent c;
        while ((c = pending.poll()) != null) {
            c.release();
        }
    }
}
