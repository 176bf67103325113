package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.call.CallExecution;
import dev.idemproxy.core.call.CallIdentity;
import dev.idemproxy.core.call.CallServices;
import dev.idemproxy.core.call.CallSettlement;
import dev.idemproxy.core.call.ClientSide;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.retry.Deadline;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * Runs one protected call for {@link ForwardHandler}: builds its {@link CallExecution} and is
 * the client leg the execution writes to. The call outlives its client: after a disconnect,
 * writes fail quietly (Netty releases them) and the execution still settles. It tells
 * {@code onAnswered} when the answer's last write has gone to the socket (or failed), which is
 * when a draining server may close the connection: the response's end is written only after
 * the call's record, so the settlement itself comes too early for that. Every settlement of a
 * {@link CallExecution} ends in exactly such a write (the last content, a replay, a problem) or
 * in {@link #abort}, so {@code onAnswered} always comes; {@code beforeLastWrite} runs just before
 * that write is issued (or the cut), once its body bytes are counted on the call.
 * Not thread-safe: used on the client channel's event loop.
 */
final class ProtectedCallRunner implements ClientSide {
    static final String TIMEOUT_MS = "X-Request-Timeout-Ms";
    static final String DEADLINE = "X-Request-Deadline";

    private final ChannelHandlerContext ctx;
    private final ProxyCall call;
    private final ServerState state;
    private final CallExecution execution;
    private final Runnable beforeLastWrite;
    private final Runnable onAnswered;

    ProtectedCallRunner(ChannelHandlerContext ctx, ProxyCall call, CallIdentity identity, CallServices services,
            ServerState state, String clientIp, java.time.Instant createdAt, boolean writeStartReceipt,
            java.util.function.Function<CallSettlement, java.util.concurrent.CompletionStage<?>> onSettled,
            Runnable beforeLastWrite, Runnable onAnswered) {
        this.ctx = ctx;
        this.beforeLastWrite = beforeLastWrite;
        this.onAnswered = onAnswered;
        this.call = call;
        this.state = state;
        Deadline deadline = Deadline.of(call.route().timeouts().total(), call.request().headers().get(TIMEOUT_MS),
                call.request().headers().get(DEADLINE), services.ticker(), services.clock());
        call.request().headers().remove(TIMEOUT_MS).remove(DEADLINE);
        HeaderRewrite.toUpstream(call.request(), call.route(), call.pathAndQuery(), call.originalHost(), clientIp);
        services.routeBudget(call.route()).recordRequest();
        if (writeStartReceipt) {
            services.recorder().started(call, identity, createdAt);
        }
        this.execution = new CallExecution(call, identity, call.request().headers(), services, this, deadline, onSettled);
    }

    void start() {
        execution.start();
    }

    void clientWritable() {
        execution.clientWritable();
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
    public void head(HttpResponse response) {
        HeaderRewrite.toClient(response, call.request().method(), call.clientVersion(), state.draining());
        ctx.write(response);
    }

    @Override
    public void content(HttpContent content) {
        call.addBytesOut(content.content().readableBytes());
        if (content instanceof LastHttpContent) {
            beforeLastWrite.run();
            answered(ctx.write(content));
        } else {
            ctx.write(content);
        }
    }

    private void answered(ChannelFuture last) {
        last.addListener(f -> onAnswered.run());
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
    public void problem(FullHttpResponse resp) {
        call.addBytesOut(resp.content().readableBytes());
        beforeLastWrite.run();
        answered(Answers.write(ctx, resp, state.draining()));
    }

    @Override
    public void replay(dev.idemproxy.core.store.StoredResponse response, String callId, int attempts) {
        FullHttpResponse r = Replays.response(ctx.alloc(), response, callId, attempts, false);
        r.headers().remove(dev.idemproxy.core.call.CallIdentity.IDEMPOTENT_REPLAYED);
        call.addBytesOut(r.content().readableBytes());
        beforeLastWrite.run();
        answered(Answers.write(ctx, r, state.draining()));
    }

    @Override
    public void abort() {
        beforeLastWrite.run();
        answered(ctx.close());
    }
}
