package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.call.CallServices;
import dev.idemproxy.core.call.ProxyCall;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpContent;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Hands each call that is not protected to the connection's {@link PassThroughRelay}, which
 * streams it both ways with back-pressure (a buffered one its plan passes through goes up as one
 * message). Protected calls never get here: the gate ({@link IdempotencyHandler}) runs them.
 * Ownership: what is not passed to the relay is released here. Not thread-safe: one instance per
 * channel.
 */
final class ForwardHandler extends ChannelDuplexHandler {
    private final CallServices services;
    private final ServerState state;
    private PassThroughRelay passThrough;
    private String clientIp;

    ForwardHandler(CallServices services, ServerState state) {
        this.services = services;
        this.state = state;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        passThrough = new PassThroughRelay(ctx, services, state);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ProxyCall c) {
            passThrough.start(c, clientIp(ctx));
        } else if (msg instanceof HttpContent) {
            passThrough.clientContent((HttpContent) msg);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        passThrough.readComplete();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        passThrough.clientWritabilityChanged(ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    /**
     * The front refused the request whose body a pass-through call is still streaming upstream
     * (too slow, or failing to decode): that call is cut off ({@link PassThroughRelay#frontRejected}).
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof FrontRejected) {
            passThrough.frontRejected((FrontRejected) evt);
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        passThrough.clientGone();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        passThrough.releasePending();
    }

    private String clientIp(ChannelHandlerContext ctx) {
        if (clientIp == null) {
            SocketAddress a = ctx.channel().remoteAddress();
            clientIp = a instanceof InetSocketAddress ? ((InetSocketAddress) a).getAddress().getHostAddress() : "unknown";
        }
        return clientIp;
    }
}
