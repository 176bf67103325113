package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.call.ClientSide;
import dev.idemproxy.core.call.ProxyCall;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.Future;

/**
 * The client leg of one protected call: where the call writes its answer, on the gate's
 * channel. A forwarded call counts as in flight (a draining server waits for it) from
 * {@link #forwarded} until its answer's end is on the wire ({@link #ended}), whether or not its
 * client stayed: after a disconnect, writes fail quietly (Netty releases them). Not thread-safe:
 * used on the client channel's event loop.
 */
final class ClientLeg implements ClientSide {
    private final ChannelHandlerContext ctx;
    private final ProxyCall call;
    private final ServerState state;
    private final String clientIp;
    private boolean forwarded;
    private boolean ended;

    ClientLeg(ChannelHandlerContext ctx, ProxyCall call, ServerState state, String clientIp) {
        this.ctx = ctx;
        this.call = call;
        this.state = state;
        this.clientIp = clientIp;
    }

    @Override
    public EventLoop loop() {
        return ctx.channel().eventLoop();
    }

    @Override
    public ByteBufAllocator alloc() {
        return ctx.alloc();
    }

    @Override
    public void answer(FullHttpResponse response) {
        ctx.writeAndFlush(response);
    }

    @Override
    public void forwarded() {
        forwarded = true;
        state.callStarted();
        call.runsWithoutClient();
        HeaderRewrite.toUpstream(call.request(), call.route(), call.pathAndQuery(), call.originalHost(), clientIp,
                call.clientScheme());
    }

    @Override
    public void head(HttpResponse response) {
        HeaderRewrite.toClient(response, call.request().method(), call.clientVersion(), state.draining());
        ctx.write(response);
    }

    @Override
    public void content(HttpContent content) {
        call.addBytesOut(content.content().readableBytes());
        ctx.write(content);
    }

    @Override
    public void flush() {
        ctx.flush();
    }

    @Override
    public boolean writable() {
        return ctx.channel().isWritable() || !ctx.channel().isActive();
    }

    @Override
    public Future<Void> last(LastHttpContent last) {
        return ctx.writeAndFlush(last);
    }

    @Override
    public Future<Void> whole(FullHttpResponse response) {
        return Answers.write(ctx, response, state.draining());
    }

    @Override
    public Future<Void> abort() {
        return ctx.close();
    }

    @Override
    public void ended() {
        if (!ended) {
            ended = true;
            if (forwarded) {
                state.callEnded();
            }
            call.end();  // in flight until here too, whether or not its client stayed
        }
    }
}
