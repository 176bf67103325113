package dev.idemproxy.core.forward;

import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.problem.ProblemResponses;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.timeout.IdleStateHandler;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Opens a blind tunnel: resolves the target off the event loop, connects to it on the client's
 * loop, then answers 200, puts the relay in place on both channels and sends the bytes that came
 * early. A target that cannot be reached is answered 502 {@code upstream-unreachable} naming it
 * and why, and the connection closed. This class is stateless.
 */
final class Tunnels {
    /** The client channel's handlers once the tunnel is open. */
    static final String IDLE = "tunnelIdle";
    static final String RELAY = "tunnel";

    private Tunnels() {}

    /** @param ctx the CONNECT handler's context, the HTTP stack already gone; {@code early} is owned from here */
    static void open(ChannelHandlerContext ctx, Tunnel tunnel, ByteBuf early, ForwardProxy proxy) {
        Channel client = ctx.channel();
        tunnel.client = client;
        EventLoop loop = client.eventLoop();
        ConnectTarget target = tunnel.target;
        proxy.resolve(target.host(), target.port()).whenComplete((address, error) -> loop.execute(() -> {
            if (error != null) {
                fail(ctx, tunnel, early, proxy, error);
                return;
            }
            connect(ctx, tunnel, early, proxy, address);
        }));
    }

    private static void connect(ChannelHandlerContext ctx, Tunnel tunnel, ByteBuf early, ForwardProxy proxy, InetSocketAddress address) {
        if (!ctx.channel().isActive()) {
            early.release();
            return;
        }
        long timeout = proxy.policy().tunnelConnectTimeout().toMillis();
        ChannelFuture cf = new Bootstrap()
                .group(ctx.channel().eventLoop())
                .channel(proxy.transport().clientChannel())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeout))
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .option(ChannelOption.AUTO_READ, false)
                .handler(new TunnelRelayHandler(tunnel))
                .connect(address);
        tunnel.upstream = cf.channel();
        cf.addListener(f -> {
            if (!f.isSuccess()) {
                fail(ctx, tunnel, early, proxy, f.cause());
            } else if (!ctx.channel().isActive()) {
                early.release();
                cf.channel().close();
            } else {
                established(ctx, tunnel, early, proxy);
            }
        });
    }

    private static void established(ChannelHandlerContext ctx, Tunnel tunnel, ByteBuf early, ForwardProxy proxy) {
        proxy.log().counted(ConnectResult.TUNNELLED);
        Channel client = ctx.channel();
        client.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        ctx.writeAndFlush(RawResponses.established(ctx.alloc()));
        long idle = proxy.policy().tunnelIdleTimeout().toMillis();
        ctx.pipeline().addAfter(ctx.name(), IDLE, new IdleStateHandler(0, 0, idle, TimeUnit.MILLISECONDS));
        ctx.pipeline().addAfter(IDLE, RELAY, new TunnelRelayHandler(tunnel));
        ctx.pipeline().remove(ctx.handler());
        tunnel.logWhenClosed();
        if (early.isReadable()) {
            tunnel.up += early.readableBytes();
            tunnel.upstream.writeAndFlush(early, tunnel.upstream.voidPromise());
        } else {
            early.release();
        }
        tunnel.upstream.config().setAutoRead(true);
        client.config().setAutoRead(true);
    }

    private static void fail(ChannelHandlerContext ctx, Tunnel tunnel, ByteBuf early, ForwardProxy proxy, Throwable cause) {
        early.release();
        String why = ConnectHandler.describe(cause);
        proxy.log().failed(tunnel.target.authority(), "unreachable", tunnel.startNanos, why);
        if (!ctx.channel().isActive()) {
            return;
        }
        var response = ProblemResponses.build(ctx.alloc(), Problem.UPSTREAM_UNREACHABLE,
                "cannot connect to " + tunnel.target.authority() + ": " + why, null);
        ctx.writeAndFlush(RawResponses.closing(ctx.alloc(), response)).addListener(ChannelFutureListener.CLOSE);
    }
}
