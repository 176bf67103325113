package dev.idemproxy.core.forward;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;

/**
 * Carries one direction of a blind {@link Tunnel}: what this channel reads is written, untouched,
 * to the other, with back-pressure (reading pauses while the other cannot take more). A FIN is
 * passed on as a half-close of the other side's output; once both sides have sent theirs, or one
 * side closes, both close. Silence both ways for the idle timeout (an {@link IdleStateEvent} on
 * the client's side) closes the tunnel. Ownership: every buffer read is written to the peer or
 * released. Not thread-safe: one per channel; both channels share one event loop.
 */
final class TunnelRelayHandler extends ChannelInboundHandlerAdapter {
    private final Tunnel tunnel;

    TunnelRelayHandler(Tunnel tunnel) {
        this.tunnel = tunnel;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Channel peer = tunnel.peer(ctx.channel());
        if (!(msg instanceof ByteBuf b) || peer == null || !peer.isActive()) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (ctx.channel() == tunnel.client) {
            tunnel.up += b.readableBytes();
        } else {
            tunnel.down += b.readableBytes();
        }
        peer.write(b, peer.voidPromise());
        if (!peer.isWritable()) {
            // Pause first: the flush may drain the buffer and fire writable again, which resumes.
            ctx.channel().config().setAutoRead(false);
            peer.flush();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        Channel peer = tunnel.peer(ctx.channel());
        if (peer != null) {
            peer.flush();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        Channel peer = tunnel.peer(ctx.channel());
        if (peer != null && ctx.channel().isWritable()) {
            peer.config().setAutoRead(true);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            Channel peer = tunnel.peer(ctx.channel());
            boolean done = tunnel.inputShut(ctx.channel());
            peer.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> {
                if (done) {
                    tunnel.closeBoth();
                } else if (peer instanceof DuplexChannel d) {
                    d.shutdownOutput();
                } else {
                    peer.close();
                }
            });
            return;
        }
        if (evt instanceof IdleStateEvent) {
            tunnel.closeBoth();
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        Channel peer = tunnel.peer(ctx.channel());
        if (peer != null && peer.isActive()) {
            peer.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
