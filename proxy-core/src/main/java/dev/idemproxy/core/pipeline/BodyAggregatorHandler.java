package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.call.CallLog;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.metrics.FrontRejection;
import dev.idemproxy.core.problem.Problem;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

/**
 * Buffers the request body of a call whose dialect asks for it ({@link ProxyCall#buffersBody()}: a
 * protected HTTP call, whose idempotency or retries need the whole body to fingerprint it and to
 * send it again; every POST of an MCP route, read as JSON-RPC), up to the route's
 * {@code maxRequestBody}; a larger body is answered 413 {@code request-too-large} as the dialect
 * words it (an MCP route's {@code tools/call} as a JSON-RPC error when its id was read) and the
 * connection closed. A request the codec read whole ({@code FullHttpRequest}) brings its body
 * with its head: it is taken from there. Other calls pass through untouched, so they stream. {@code Expect: 100-continue} is answered here, once the
 * body is to be read ({@link ExpectContinue}). Ownership: contents of a protected call are
 * accumulated into the call's body buffer (released when the call ends) and not passed on. A
 * {@link FrontRejected} event while a body is being buffered (too slow, or failing to decode)
 * drops the call and its buffer, and logs it as refused under its route.
 * Not thread-safe: one instance per channel.
 */
final class BodyAggregatorHandler extends ChannelInboundHandlerAdapter {
    /** How much of a refused body its dialect is shown (a JSON-RPC id comes first, in practice). */
    private static final int PREFIX_BYTES = 4096;
    private static final byte[] NONE = new byte[0];
    private final CallLog log;
    private ProxyCall call;
    private CompositeByteBuf body;
    private long limit;
    private boolean rejected;

    BodyAggregatorHandler(CallLog log) {
        this.log = log;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ProxyCall) {
            ProxyCall c = (ProxyCall) msg;
            if (!c.buffersBody()) {
                ExpectContinue.accept(ctx, c.request());
                ctx.fireChannelRead(msg);
                return;
            }
            start(ctx, c);
            return;
        }
        if (rejected) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (call != null && msg instanceof HttpContent) {
            append(ctx, (HttpContent) msg);
            return;
        }
        ctx.fireChannelRead(msg);
    }

    private void start(ChannelHandlerContext ctx, ProxyCall c) {
        limit = c.route().idempotency().maxRequestBody();
        long declared = HttpUtil.getContentLength(c.request(), -1L);
        if (declared > limit) {
            log.metrics().frontRejection(FrontRejection.TOO_LARGE);
            byte[] prefix = c.request() instanceof FullHttpRequest ? prefix(((FullHttpRequest) c.request()).content()) : NONE;
            ReferenceCountUtil.release(c.request());  // a request read whole carries its body: let it go
            reject(ctx, c, prefix, declared);
            return;
        }
        ExpectContinue.accept(ctx, c.request());
        call = c;
        if (c.request() instanceof FullHttpRequest) {
            whole(ctx, (FullHttpRequest) c.request());  // read whole: its body is here already, and it is the last
            return;
        }
        body = ctx.alloc().compositeBuffer(64);
    }

    /**
     * A request read whole: its content is the body as it is (no composite of one part), or it
     * is refused as too large the way {@link #append} refuses a last part.
     */
    private void whole(ChannelHandlerContext ctx, FullHttpRequest request) {
        long size = request.content().readableBytes();
        if (size > limit) {
            refuse(ctx, request, size, NONE);  // nothing came before this part: an empty prefix
            return;
        }
        ProxyCall c = call;
        c.body(request.content().retain());
        request.release();
        call = null;
        ctx.fireChannelRead(c);
    }

    private void append(ChannelHandlerContext ctx, HttpContent content) {
        if (body.readableBytes() + (long) content.content().readableBytes() > limit) {
            refuse(ctx, content, body.readableBytes() + (long) content.content().readableBytes(), prefix(body));
            return;
        }
        body.addComponent(true, content.content().retain());
        boolean last = content instanceof LastHttpContent;
        content.release();
        if (last) {
            ProxyCall c = call;
            c.body(body);
            call = null;
            body = null;
            ctx.fireChannelRead(c);
        }
    }

    /** The part that took the body past the limit: let go, the call refused ({@code prefix}: the body before it). */
    private void refuse(ChannelHandlerContext ctx, HttpContent content, long size, byte[] prefix) {
        content.release();
        log.metrics().frontRejection(FrontRejection.TOO_LARGE);
        ProxyCall c = call;
        c.addBytesIn(size);
        discard();
        reject(ctx, c, prefix, size);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof FrontRejected && call != null) {
            FrontRejected r = (FrontRejected) evt;
            log.finished(call, CallOutcome.REJECTED, r.status, null, null, null, 0, r.reason.spelling());
            discard();
            rejected = true;
            r.own();
        }
        ctx.fireUserEventTriggered(evt);
    }

    /**
     * Answers 413 (in the call's dialect) and closes, after the call's line ({@code in}: the body
     * bytes read before it was refused).
     */
    private void reject(ChannelHandlerContext ctx, ProxyCall c, byte[] prefix, long size) {
        rejected = true;
        ctx.channel().config().setAutoRead(false);
        FullHttpResponse resp = c.dialect().tooLarge(ctx.alloc(), c, prefix,
                "request body of at least " + size + " bytes exceeds maxRequestBody " + limit);
        c.addBytesOut(resp.content().readableBytes());
        log.finished(c, CallOutcome.REJECTED, Problem.REQUEST_TOO_LARGE.status(), null, null, null, 0, "request_too_large");
        Answers.write(ctx, resp, true);
    }

    /** The first bytes of a body refused as too large, for its dialect to read an id from. */
    private static byte[] prefix(ByteBuf b) {
        return ByteBufUtil.getBytes(b, b.readerIndex(), Math.min(PREFIX_BYTES, b.readableBytes()));
    }

    private void discard() {
        if (body != null) {
            body.release();
            body = null;
        }
        call = null;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        discard();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        discard();
    }
}
