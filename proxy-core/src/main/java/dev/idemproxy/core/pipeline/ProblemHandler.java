package dev.idemproxy.core.pipeline;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tail of the client pipeline. An exception that reached here escaped the handler that owned
 * the exchange, so the connection's state is unknown: it is logged and the connection closed.
 * (I/O errors such as a client reset are routine and logged at debug, and so is a client's TLS
 * failing on an intercepted CONNECT, which its CONNECT line reports.) Stray messages are
 * released. This class is stateless and shared.
 */
@Sharable
final class ProblemHandler extends ChannelInboundHandlerAdapter {
    static final ProblemHandler INSTANCE = new ProblemHandler();
    private static final Logger LOG = LoggerFactory.getLogger(ProblemHandler.class);

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ReferenceCountUtil.release(msg);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException || cause.getCause() instanceof javax.net.ssl.SSLException) {
            LOG.debug("client connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        } else {
            LOG.warn("closing client connection {} after an unexpected error", ctx.channel().remoteAddress(), cause);
        }
        ctx.close();
    }
}
