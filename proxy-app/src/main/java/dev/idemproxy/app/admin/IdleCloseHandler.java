package dev.idemproxy.app.admin;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;

/**
 * Closes a connection when the {@code IdleStateHandler} before it reports it idle. Holds no
 * message. Stateless, hence {@link Sharable} and thread-safe.
 */
@Sharable
final class IdleCloseHandler extends ChannelInboundHandlerAdapter {
    static final IdleCloseHandler INSTANCE = new IdleCloseHandler();

    private IdleCloseHandler() {
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent) {
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }
}
