package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.pipeline.LimitsPolicy.UnderscoreHeaders;
import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.metrics.FrontRejection;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.problem.ProblemResponses;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.util.ReferenceCountUtil;

/**
 * Answers requests that must not go further: undecodable heads (400), header blocks or request
 * lines over the limits (431), ambiguous framing such as Content-Length with Transfer-Encoding
 * (400), an HTTP version other than 1.0 and 1.1 (505), a missing or repeated Host on HTTP/1.1
 * (400), CONNECT (405), and a header name with {@code _} when {@code limits.underscoreHeaders} is
 * {@code reject} (400; with {@code drop}, such headers are removed here, before anything reads
 * the request). Every such answer closes the connection, because the rest of the byte stream
 * can no longer be trusted. Each refused request is counted and logged through
 * {@link FrontRejections} ({@code outcome=rejected}).
 *
 * <p>A body that fails to decode (a bad chunk size, chunk data overrunning its size, or the
 * connection ending before the body did) arrives as a content whose decoder result is a failure,
 * after the head has passed. It is not let through, so no handler downstream takes it for the
 * end of a complete request: the connection is answered 400 if no response to this request has
 * started yet, and closed either way, which also drops an upstream request under way unfinished
 * (the call holding it ends on the {@link FrontRejected} event, and logs the refusal). A body cut
 * short by the client leaving is not a refusal: the connection is gone, and is neither answered
 * nor counted.
 * From then on, writes from downstream are dropped: the guard's answer is the last word.
 * Ownership: a rejected message and everything after it is released here.
 * Not thread-safe: one instance per channel.
 */
final class RequestGuardHandler extends ChannelDuplexHandler {
    private final UnderscoreHeaders underscores;
    private final FrontRejections rejections;
    private boolean rejected;
    /** A final response to the current request has started, so a 400 can no longer be sent. */
    private boolean answered;

    RequestGuardHandler(UnderscoreHeaders underscores, FrontRejections rejections) {
        this.underscores = underscores;
        this.rejections = rejections;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (rejected) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (!(msg instanceof HttpRequest)) {
            if (msg instanceof HttpContent && ((HttpContent) msg).decoderResult().isFailure()) {
                Throwable cause = ((HttpContent) msg).decoderResult().cause();
                ReferenceCountUtil.release(msg);
                reject(ctx, new HeadChecks.Rejection(Problem.BAD_REQUEST, "malformed request body: " + cause.getMessage(),
                        FrontRejection.MALFORMED));
                return;
            }
            ctx.fireChannelRead(msg);
            return;
        }
        HttpRequest req = (HttpRequest) msg;
        answered = false;
        HeadChecks.Rejection r = HeadChecks.check(req);
        if (r == null) {
            r = HeadChecks.underscores(req.headers(), underscores);
        }
        if (r == null) {
            ctx.fireChannelRead(msg);
            return;
        }
        ReferenceCountUtil.release(msg);
        reject(ctx, r);
    }

    private void reject(ChannelHandlerContext ctx, HeadChecks.Rejection r) {
        rejected = true;
        ctx.channel().config().setAutoRead(false);
        if (!ctx.channel().isActive()) {
            // The client left mid-request (the decoder reports the body cut short): an abandoned
            // request, not one the front refused; the call holding it ends as the channel does.
            ctx.close();
            return;
        }
        boolean canAnswer = !answered;
        int status = canAnswer ? r.problem().status() : 0;
        if (r.reason() != null) {
            rejections.request(ctx, r.reason(), status, rejections.now());
        } else if (canAnswer) {
            rejections.log().finished(RouteHandler.NO_ROUTE, CallOutcome.REJECTED, status, rejections.now(), null, null, null, 0,
                    r.problem().spelling());
        }
        if (!canAnswer) {
            ctx.close();
            return;
        }
        Answers.write(ctx, ProblemResponses.build(ctx.alloc(), r.problem(), r.detail(), null), true);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (rejected) {
            ReferenceCountUtil.release(msg);
            promise.setSuccess();
            return;
        }
        if (msg instanceof HttpResponse && ((HttpResponse) msg).status().codeClass() != HttpStatusClass.INFORMATIONAL) {
            answered = true;
        }
        ctx.write(msg, promise);
    }
}
