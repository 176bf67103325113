package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.problem.ProblemResponses;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;

/**
 * Answers requests that must not go further: undecodable heads (400), header blocks or request
 * lines over the limits (431), ambiguous framing such as Content-Length with Transfer-Encoding
 * (400), a missing or repeated Host on HTTP/1.1 (400), and CONNECT (405). Every such answer
 * closes the connection, because the rest of the byte stream can no longer be trusted.
 * Ownership: a rejected message and everything after it is released here.
 * Not thread-safe: one instance per channel.
 */
final class RequestGuardHandler extends ChannelInboundHandlerAdapter {
    private boolean rejected;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (rejected) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (!(msg instanceof HttpRequest)) {
            ctx.fireChannelRead(msg);
            return;
        }
        HttpRequest req = (HttpRequest) msg;
        Rejection r = check(req);
        if (r == null) {
            ctx.fireChannelRead(msg);
            return;
        }
        rejected = true;
        ReferenceCountUtil.release(msg);
        ctx.channel().config().setAutoRead(false);
        FullHttpResponse resp = ProblemResponses.build(ctx.alloc(), r.problem, r.detail, null);
        resp.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(resp).addListener(ChannelFutureListener.CLOSE);
    }

    private static Rejection check(HttpRequest req) {
        DecoderResult dr = req.decoderResult();
        if (dr.isFailure()) {
            Throwable cause = dr.cause();
            if (cause instanceof TooLongHttpHeaderException) {
                return new Rejection(Problem.HEADER_TOO_LARGE, cause.getMessage());
            }
            if (cause instanceof TooLongHttpLineException) {
                return new Rejection(Problem.HEADER_TOO_LARGE, cause.getMessage());
            }
            if (cause instanceof ServerCodec.AmbiguousFramingException) {
                return new Rejection(Problem.BAD_REQUEST, "Content-Length together with Transfer-Encoding is refused");
            }
            return new Rejection(Problem.BAD_REQUEST, "malformed request: " + cause.getMessage());
        }
        if (HttpMethod.CONNECT.equals(req.method())) {
            return new Rejection(Problem.METHOD_NOT_SUPPORTED, "CONNECT tunnels are not supported; send plain http:// requests");
        }
        int hosts = req.headers().getAll(HttpHeaderNames.HOST).size();
        if (hosts > 1 || (hosts == 0 && req.protocolVersion().equals(HttpVersion.HTTP_1_1))) {
            return new Rejection(Problem.BAD_REQUEST, hosts == 0 ? "missing Host header" : "more than one Host header");
        }
        return null;
    }

    private static final class Rejection {
        final Problem problem;
        final String detail;

        Rejection(Problem problem, String detail) {
            this.problem = problem;
            this.detail = detail;
        }
    }
}
