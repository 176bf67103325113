package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.call.CallExecution;
import dev.idemproxy.core.call.CallIdentity;
import dev.idemproxy.core.call.CallServices;
import dev.idemproxy.core.call.CallSettlement;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.retry.OutcomeClass;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.call.RecordedProtection;
import dev.idemproxy.core.call.ReplayAuthority;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.problem.ProblemResponses;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.Timeouts;
import dev.idemproxy.core.upstream.UpstreamConnection;
import dev.idemproxy.core.upstream.UpstreamListener;
import dev.idemproxy.core.upstream.UpstreamPools;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * Streams one call at a time to its upstream and the response back, both ways with
 * back-pressure: when the far side cannot keep up, reading from the near side pauses.
 * The upstream connection shares this channel's event loop, so every callback below runs on
 * one thread and no state needs locking. The response head must arrive within
 * min(perTry, total); after that only the idle timeout applies, so long streams (SSE) live on.
 * Ownership: request contents are written upstream (which releases them) or released here;
 * response contents are written to the client. Not thread-safe: one instance per channel.
 */
final class ForwardHandler extends ChannelDuplexHandler implements UpstreamListener {
    private final CallServices services;
    private final UpstreamPools pools;
    private final ServerState state;
    private final ArrayDeque<HttpContent> pending = new ArrayDeque<>();

    private ChannelHandlerContext ctx;
    private ProxyCall call;
    private long callSeq;
    private UpstreamConnection conn;
    /** The one pending head-timeout check of this connection, reused across calls (see {@link #startHeadTimer}). */
    private ScheduledFuture<?> headTimer;
    /** When the timer fires: the call it watches and that call's head deadline; 0 when none waits. */
    private long headSeq;
    private long headDeadlineNanos;
    private long headTimerFiresNanos;
    private boolean requestDone;
    private boolean responseStarted;
    private boolean responseDone;
    private boolean upstreamWantsClose;
    private boolean discardRequest;
    private int status;
    private String clientIp;
    /** The route of the last call on this connection, and what the upstream request head derives from it. */
    private Route derivedFor;
    private String upstreamBasePath;
    private String upstreamAuthority;
    private boolean failed;

    private ProtectedCallRunner protectedRun;

    ForwardHandler(CallServices services, ServerState state) {
        this.services = services;
        this.pools = services.pools();
        this.state = state;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ProxyCall) {
            start((ProxyCall) msg);
        } else if (msg instanceof HttpContent) {
            onClientContent((HttpContent) msg);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    private void start(ProxyCall c) {
        status = 0;
        failed = false;
        if (c.body() != null) {
            startProtected(c);
            return;
        }
        call = c;
        long seq = ++callSeq;
        // a request read whole (no body, or all of it in one read) comes as one FullHttpRequest
        requestDone = c.request() instanceof LastHttpContent;
        if (c.request() instanceof HttpContent) {
            c.addBytesIn(((HttpContent) c.request()).content().readableBytes());
        }
        if (requestDone) {
            startHeadTimer();
        }
        responseStarted = false;
        responseDone = false;
        upstreamWantsClose = false;
        discardRequest = false;
        state.callStarted();
        UpstreamConnection pooled = pools.tryPooled(c.route(), ctx.channel().eventLoop(), this);
        if (pooled != null) {
            connected(pooled, true);
            return;
        }
        ctx.channel().config().setAutoRead(false);
        pools.acquire(c.route(), ctx.channel().eventLoop(), this).addListener(f -> onAcquired(seq, f));
    }

    /**
     * A protected call: its body is buffered, so the request is complete; the call runs its
     * attempts in a {@link ProtectedCallRunner} and ends when that settles, even if this
     * client has gone by then.
     */
    private void startProtected(ProxyCall c) {
        call = c;
        ++callSeq;
        requestDone = true;
        responseStarted = true;
        state.callStarted();
        // A call without a record takes its DLQ replay's proof here (a recorded one did at its claim).
        ReplayAuthority.Replay replay = c.protection() == null ? services.replays().take(c.request()) : null;
        CallIdentity identity = c.protection() != null ? c.protection().identity()
                : services.unrecordedIdentity(c, services.bizId(c, new NettyRequestView(c)), replay);
        RecordedProtection recorded = c.protection() instanceof RecordedProtection ? (RecordedProtection) c.protection() : null;
        // A recorded call's PROCESSING receipt went with its claim; its final one goes with its record.
        java.time.Instant createdAt = recorded != null ? recorded.createdAt()
                : ReplayAuthority.createdAt(replay, services.recorder().now());
        // The call counts as in flight (a draining server waits for it) until its answer is on the
        // socket: that comes after its record is written, later than the settlement.
        boolean[] ended = {false};
        Runnable answered = () -> {
            if (!ended[0]) {
                ended[0] = true;
                state.callEnded();
            }
        };
        boolean writesReceipt = recorded == null && (c.protection() == null || c.protection().writesReceipt());
        ProtectedCallLine line = new ProtectedCallLine(services.log(), c, identity);
        protectedRun = new ProtectedCallRunner(ctx, c, identity, services, state, clientIp(), createdAt, writesReceipt, settlement -> {
            protectedRun = null;
            ReceiptPut receipt = services.recorder().settled(c, identity, recorded != null ? recorded.key() : null,
                    recorded != null ? recorded.owner() : null, createdAt, settlement, writesReceipt);
            line.settled(settlement);
            c.releaseBody();
            if (call == c) {
                call = null;
                cancelHeadTimer();
            }
            // The answer's last write, after this, ends the call for the drain (ProtectedCallRunner).
            return c.protection() != null ? c.protection().settle(settlement, recorded != null ? receipt : null)
                    : java.util.concurrent.CompletableFuture.completedFuture(null);
        }, line::lastWrite, answered);
        protectedRun.start();
    }

    private void onAcquired(long seq, Future<?> f) {
        if (seq != callSeq || call == null) {
            if (f.isSuccess()) {
                ((UpstreamConnection) f.getNow()).release(false);
            }
            return;
        }
        if (!f.isSuccess()) {
            fail(Problem.UPSTREAM_UNREACHABLE, CallExecution.describe(f.cause()));
            return;
        }
        connected((UpstreamConnection) f.getNow(), false);
    }

    /**
     * Sends the head (and any body that waited for the connection). Called while the head's read
     * is being handled ({@code inRead}), the flush is left to the end of the request
     * ({@link #onClientContent}) or of the read ({@link #channelReadComplete}), whichever comes
     * first, so a request that arrived in one read goes upstream in one write.
     */
    private void connected(UpstreamConnection leased, boolean inRead) {
        conn = leased;
        Route route = call.route();
        if (route != derivedFor) {
            derivedFor = route;
            upstreamBasePath = route.upstreamBasePath();
            upstreamAuthority = route.upstreamAuthority();
        }
        HeaderRewrite.toUpstream(call.request(), upstreamBasePath, upstreamAuthority, call.pathAndQuery(), call.originalHost(), clientIp());
        ReplayAuthority.strip(call.request().headers());  // a DLQ replay's proof is ours, even where it proves nothing
        Channel up = conn.channel();
        // Void promises: a failed upstream write fires exceptionCaught there, which ends the call.
        up.write(call.request(), up.voidPromise());
        HttpContent c;
        while ((c = pending.poll()) != null) {
            up.write(c, up.voidPromise());
        }
        if (!inRead || requestDone) {
            up.flush();
        }
        if (!requestDone) {
            ctx.channel().config().setAutoRead(conn.channel().isWritable());
        }
    }

    private void onClientContent(HttpContent c) {
        if (call == null || discardRequest) {
            if (c instanceof LastHttpContent) {
                discardRequest = false;
                ctx.channel().config().setAutoRead(true);
            }
            c.release();
            return;
        }
        boolean last = c instanceof LastHttpContent;
        call.addBytesIn(c.content().readableBytes());
        if (last) {
            requestDone = true;
            startHeadTimer();
        }
        if (conn == null) {
            pending.add(c);
            return;
        }
        conn.channel().write(c, conn.channel().voidPromise());
        if (last) {
            conn.channel().flush();
            maybeFinish();
        } else if (!conn.channel().isWritable()) {
            // Pause first: the flush may drain the buffer and fire writable again, which resumes.
            ctx.channel().config().setAutoRead(false);
            conn.channel().flush();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (conn != null) {
            conn.channel().flush();
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void onResponseHead(HttpResponse resp) {
        if (call == null) {
            return;
        }
        toClient(resp);
        ctx.write(resp, ctx.voidPromise());
    }

    /** The response has started: its head is made the client's (written by the caller). */
    private void toClient(HttpResponse resp) {
        cancelHeadTimer();
        responseStarted = true;
        status = resp.status().code();
        upstreamWantsClose = !HttpUtil.isKeepAlive(resp);
        HttpMethod method = call.request().method();
        HeaderRewrite.toClient(resp, method, call.clientVersion(), state.draining());
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
        ctx.write(new DefaultFullHttpResponse(head.protocolVersion(), head.status(), last.content(), head.headers(),
                last.trailingHeaders()), ctx.voidPromise());
        responseDone = true;
        ctx.flush();
        maybeFinish();
    }

    @Override
    public void onResponseContent(HttpContent content) {
        if (call == null || !responseStarted) {
            content.release();
            return;
        }
        boolean last = content instanceof LastHttpContent;
        call.addBytesOut(content.content().readableBytes());
        ctx.write(content, ctx.voidPromise());
        if (last) {
            responseDone = true;
            ctx.flush();
            maybeFinish();
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
        if (call != null && !requestDone && conn != null) {
            ctx.channel().config().setAutoRead(writable);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (protectedRun != null && ctx.channel().isWritable()) {
            protectedRun.clientWritable();
        }
        if (conn != null && responseStarted && !responseDone) {
            conn.channel().config().setAutoRead(ctx.channel().isWritable());
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void onUpstreamClosed(Throwable cause) {
        if (call == null) {
            return;
        }
        conn = null;
        if (!responseStarted) {
            fail(Problem.UPSTREAM_RESET, cause instanceof dev.idemproxy.core.upstream.MalformedResponseException ? cause.getMessage()
                    : "the upstream closed the connection before answering" + (cause == null ? "" : ": " + CallExecution.describe(cause)));
        } else if (!responseDone) {
            abort();
        }
    }

    @Override
    public void onUpstreamIdle() {
        if (call != null && (responseStarted || !requestDone)) {
            abort();
        }
    }

    /**
     * The wait for the response head starts once the whole request is in (as Envoy's timeouts
     * do), so a long upload is bounded by the idle timeout, not by perTry.
     *
     * <p>One scheduled check per connection serves all its calls: a call only sets its deadline,
     * and the check, when it fires, either times the call out or moves itself to the deadline of
     * the call then waiting. Nothing is scheduled or cancelled per call unless a call's deadline
     * is earlier than the pending check (a route with a shorter perTry).
     */
    private void startHeadTimer() {
        Timeouts t = call.route().timeouts();
        long headNanos = TimeUnit.MILLISECONDS.toNanos(Math.min(t.perTry().toMillis(), t.total().toMillis()));
        headSeq = callSeq;
        headDeadlineNanos = System.nanoTime() + headNanos;
        if (headTimer != null && headTimerFiresNanos - headDeadlineNanos <= 0) {
            return;
        }
        scheduleHeadCheck(headNanos);
    }

    private void scheduleHeadCheck(long delayNanos) {
        if (headTimer != null) {
            headTimer.cancel(false);
        }
        headTimerFiresNanos = System.nanoTime() + delayNanos;
        headTimer = ctx.executor().schedule(this::onHeadCheck, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void onHeadCheck() {
        headTimer = null;
        if (headSeq == 0 || headSeq != callSeq || call == null || responseStarted) {
            headSeq = 0;
            return;
        }
        long left = headDeadlineNanos - System.nanoTime();
        if (left > 0) {
            scheduleHeadCheck(left);
            return;
        }
        headSeq = 0;
        Timeouts t = call.route().timeouts();
        boolean sent = conn != null;
        boolean totalExpired = t.total().compareTo(t.perTry()) <= 0;
        Problem p = sent && !totalExpired ? Problem.AMBIGUOUS_OUTCOME : Problem.DEADLINE_EXCEEDED;
        fail(p, "no response head from the upstream within " + Math.min(t.perTry().toMillis(), t.total().toMillis()) + " ms");
    }

    /** Ends the call with a proxy-made answer; the response has not started. */
    private void fail(Problem problem, String detail) {
        status = problem.status();
        failed = true;
        releaseUpstream(false);
        FullHttpResponse resp = ProblemResponses.build(ctx.alloc(), problem, detail, null);
        call.addBytesOut(resp.content().readableBytes());
        boolean close = !requestDone || state.draining();
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

    private void maybeFinish() {
        if (!responseDone) {
            return;
        }
        if (requestDone) {
            releaseUpstream(!upstreamWantsClose);
        } else {
            // The upstream answered before the request body ended: stop sending, drop the rest.
            releaseUpstream(false);
            discardRequest = true;
        }
        endCall();
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
        cancelHeadTimer();
        if (call != null) {
            ProxyCall c = call;
            call = null;
            state.callEnded();
            services.log().passedThrough(c, failed, status);
        }
    }

    /** The outcome tag of a settled protected call. */
    static CallOutcome outcomeOf(CallSettlement s) {
        RetryDecision d = s.decision();
        if (s.truncated() || d == null || d.deadLetter()) {
            return CallOutcome.FAILED;
        }
        return d.outcome() == OutcomeClass.EXECUTED || d.store() ? CallOutcome.EXECUTED : CallOutcome.NOT_EXECUTED;
    }

    /** The call no longer waits for a head; a pending check finds nothing to do and lapses. */
    private void cancelHeadTimer() {
        headSeq = 0;
    }

    private void stopHeadTimer() {
        headSeq = 0;
        if (headTimer != null) {
            headTimer.cancel(false);
            headTimer = null;
        }
    }

    private void releasePending() {
        HttpContent c;
        while ((c = pending.poll()) != null) {
            c.release();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (protectedRun != null) {
            // A forwarded protected call runs to its end; it settles and counts itself out.
            call = null;
            protectedRun.clientWritable();
        } else if (call != null) {
            releaseUpstream(false);
            endCall();
        }
        stopHeadTimer();
        releasePending();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releasePending();
    }

    private String clientIp() {
        if (clientIp == null) {
            SocketAddress a = ctx.channel().remoteAddress();
            clientIp = a instanceof InetSocketAddress ? ((InetSocketAddress) a).getAddress().getHostAddress() : "unknown";
        }
        return clientIp;
    }

}
