package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.metrics.FrontRejection;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.problem.ProblemResponses;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Enforces {@code limits.headTimeout}, {@code bodyTimeout} and {@code idleTimeout} on a client
 * connection, by the rules of {@link FrontTimeline}: a request too slow is answered 408 (when no
 * response to it has started) and the connection closed; an idle one is closed; a draining
 * server's connections close once nothing is unanswered. It sits right after the codec: it sees
 * the first bytes of each request ({@link ServerCodec.RequestStarted}), the decoded heads and
 * ends, and every response written. Time is the event loop's ticker, so tests can move it.
 * One scheduled check per connection, re-armed when it runs; requests schedule nothing.
 * Ownership: passes every message on; once it has refused a request, it releases whatever
 * arrives after and drops what is written after its answer. Not thread-safe: one per channel.
 */
final class FrontTimeoutHandler extends ChannelDuplexHandler {
    private final LimitsPolicy limits;
    private final FrontRejections rejections;
    private final Runnable checkTask = this::onCheck;
    private ChannelHandlerContext ctx;
    private FrontTimeline timeline;
    private ScheduledFuture<?> check;
    private boolean draining;
    /** A request was refused: nothing more is read or written but the answer. */
    private boolean done;

    FrontTimeoutHandler(LimitsPolicy limits, FrontRejections rejections) {
        this.limits = limits;
        this.rejections = rejections;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        long now = now();
        timeline = new FrontTimeline(limits, now);  // added when the connection is accepted
        schedule(timeline.nextCheckIn(now));
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (done) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest) {
            timeline.headRead(now(), msg instanceof LastHttpContent);
        } else if (msg instanceof LastHttpContent) {
            timeline.bodyRead(now());
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == ServerCodec.RequestStarted.INSTANCE) {
            timeline.bytesArrived(now());
            return;
        }
        if (evt == ServerDrainEvent.INSTANCE) {
            draining = true;
            if (timeline.unanswered() == 0) {
                ctx.close();
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (done) {
            ReferenceCountUtil.release(msg);
            promise.setSuccess();
            return;
        }
        if (msg instanceof HttpResponse && ((HttpResponse) msg).status().codeClass() != HttpStatusClass.INFORMATIONAL) {
            timeline.responseStarted();
        }
        if (ExchangeTracker.endsResponse(msg)) {
            timeline.responseEnded(now());
            if (draining && timeline.unanswered() == 0) {
                ctx.write(msg, promise.unvoid()).addListener(ChannelFutureListener.CLOSE);
                return;
            }
        }
        ctx.write(msg, promise);
    }

    private void onCheck() {
        check = null;
        if (done || !ctx.channel().isActive()) {
            return;
        }
        long now = now();
        switch (timeline.check(now)) {
            case NONE -> schedule(timeline.nextCheckIn(now));
            case IDLE -> ctx.close();
            case HEAD -> refuse(FrontRejection.HEAD_TIMEOUT, "the request head did not arrive within limits.headTimeout ", now);
            case BODY -> refuse(FrontRejection.BODY_TIMEOUT, "the request body did not arrive within limits.bodyTimeout ", now);
        }
    }

    private void refuse(FrontRejection reason, String what, long now) {
        done = true;
        ctx.channel().config().setAutoRead(false);
        boolean answer = timeline.canAnswer();
        if (reason == FrontRejection.HEAD_TIMEOUT && !answer) {
            rejections.counted(reason);  // a new connection that never sent a byte: no request to answer or log
            ctx.close();
            return;
        }
        long startNanos = rejections.now() - (now - timeline.since());  // from the event loop's ticker to the log's
        rejections.request(ctx, reason, answer ? Problem.REQUEST_TIMEOUT.status() : 0, startNanos);
        if (!answer) {
            ctx.close();
            return;
        }
        long limitMillis = (reason == FrontRejection.HEAD_TIMEOUT ? limits.headTimeout() : limits.bodyTimeout()).toMillis();
        Answers.write(ctx, ProblemResponses.build(ctx.alloc(), Problem.REQUEST_TIMEOUT, what + "(" + limitMillis + " ms)", null),
                true);
    }

    private void schedule(long delayNanos) {
        check = ctx.executor().schedule(checkTask, delayNanos, TimeUnit.NANOSECONDS);
    }

    private long now() {
        return ctx.executor().ticker().nanoTime();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancelCheck();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancelCheck();
    }

    private void cancelCheck() {
        if (check != null) {
            check.cancel(false);
            check = null;
        }
    }
}
