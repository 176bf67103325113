package dev.idemproxy.core.forward;

import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.problem.ProblemResponses;
import dev.idemproxy.core.route.RouteTable;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.util.function.Supplier;

/**
 * Answers CONNECT on a proxy with {@code forwardProxy} (CONTRACT §11); every other message passes
 * on. The target's host decides ({@link ConnectResult#decide}): a host a route intercepts gets a
 * 200 and then the TLS handshake and the HTTP handlers again, routed by that host; any other host
 * a blind {@link Tunnel} or 403 {@code connect-refused}. A target that is not {@code host:port}, or
 * a CONNECT with a body, is 400 {@code bad-request}. The refusals close the connection. A CONNECT
 * that fails to decode, or of another HTTP version, passes on to the guard, which refuses it.
 * Ownership: the CONNECT request is released here. Not thread-safe: one per channel.
 */
final class ConnectHandler extends ChannelInboundHandlerAdapter {
    private final ForwardProxy proxy;
    private final Supplier<RouteTable> routes;
    private final HttpStack stack;
    /** Set once the HTTP stack is gone and the target's connection is being made. */
    private Tunnel opening;

    ConnectHandler(ForwardProxy proxy, Supplier<RouteTable> routes, HttpStack stack) {
        this.proxy = proxy;
        this.routes = routes;
        this.stack = stack;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof HttpRequest req) || !HttpMethod.CONNECT.equals(req.method()) || req.decoderResult().isFailure()
                || !(req.protocolVersion().equals(HttpVersion.HTTP_1_1) || req.protocolVersion().equals(HttpVersion.HTTP_1_0))) {
            ctx.fireChannelRead(msg);
            return;
        }
        long start = System.nanoTime();
        boolean whole = msg instanceof FullHttpRequest full && !full.content().isReadable();
        String uri = req.uri();
        ReferenceCountUtil.release(msg);
        ConnectTarget target = ConnectTarget.parse(uri);
        if (target == null || !whole) {
            String why = target == null ? "CONNECT target '" + uri + "' (expected: host:port, port 1-65535)"
                    : "a CONNECT request with a body (expected: none)";
            proxy.log().failed(uri, "rejected", start, why);
            refuse(ctx, Problem.BAD_REQUEST, why);
            return;
        }
        ConnectResult result = ConnectResult.decide(routes.get(), target, proxy.policy().connect());
        if (result == ConnectResult.REFUSED) {
            proxy.log().counted(result);
            proxy.log().refused(target, start);
            refuse(ctx, Problem.CONNECT_REFUSED, "CONNECT to " + target.authority()
                    + " is refused: no route intercepts this host, and forwardProxy.connect is refuse");
            return;
        }
        ctx.channel().config().setAutoRead(false);
        ByteBuf early = PipelineSwitch.strip(ctx, stack);
        if (result == ConnectResult.INTERCEPTED) {
            intercept(ctx, target, early, start);
        } else {
            opening = new Tunnel(target, start, proxy.log());
            Tunnels.open(ctx, opening, early, proxy);
        }
    }

    /** 200, then the TLS handshake and the HTTP handlers again, behind it. */
    private void intercept(ChannelHandlerContext ctx, ConnectTarget target, ByteBuf early, long start) {
        proxy.log().counted(ConnectResult.INTERCEPTED);
        ctx.writeAndFlush(RawResponses.established(ctx.alloc()));
        stack.addIntercepted(ctx.pipeline(), new InterceptTlsHandler(target, proxy.leaves(), proxy.log(), start), target);
        if (early.isReadable()) {
            ctx.fireChannelRead(early);
        } else {
            early.release();
        }
        ctx.pipeline().remove(this);
        ctx.channel().config().setAutoRead(true);
    }

    /** A problem answer that closes the connection; the HTTP stack is still in place to write it. */
    private static void refuse(ChannelHandlerContext ctx, Problem problem, String detail) {
        var response = ProblemResponses.build(ctx.alloc(), problem, detail, null);
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (opening != null && opening.upstream != null) {
            opening.upstream.close();
        }
        ctx.fireChannelInactive();
    }

    /** A failure's cause, as short as it can be said: {@code SSLHandshakeException: Received fatal alert: …}. */
    static String describe(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && (c.getMessage() == null || c instanceof io.netty.handler.codec.DecoderException)) {
            c = c.getCause();
        }
        return c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage());
    }
}
