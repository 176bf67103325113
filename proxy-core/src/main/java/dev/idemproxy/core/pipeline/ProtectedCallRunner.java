package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.call.CallIdentity;
import dev.idemproxy.core.call.CallServices;
import dev.idemproxy.core.call.ClientSide;
import dev.idemproxy.core.call.ProtectedCall;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.call.Replays;
import dev.idemproxy.core.call.RecordedProtection;
import dev.idemproxy.core.call.ReplayAuthority;
import dev.idemproxy.core.call.Settlement;
import dev.idemproxy.core.retry.Deadline;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import java.time.Instant;

/**
 * The client leg of one protected call for {@link ForwardHandler}: builds its
 * {@link ProtectedCall} and is the {@link ClientSide} the call writes to. The call outlives its
 * client: after a disconnect, writes fail quietly (Netty releases them) and the call still
 * settles. The call counts as in flight (a draining server waits for it) until its answer's last
 * write has gone to the socket (or failed): the response's end is written only after the call's
 * record, so the settlement itself comes too early for that. Every settled call ends its answer
 * in exactly one such write (the last content, a replay, a problem) or in {@link #abort}.
 * Not thread-safe: used on the client channel's event loop.
 */
final class ProtectedCallRunner implements ClientSide {
    static final String TIMEOUT_MS = "X-Request-Timeout-Ms";
    static final String DEADLINE = "X-Request-Deadline";

    private final ChannelHandlerContext ctx;
    private final ProxyCall call;
    private final ServerState state;
    private ProtectedCall execution;
    private Settlement settlement;
    private boolean answered;

    private ProtectedCallRunner(ChannelHandlerContext ctx, ProxyCall call, ServerState state) {
        this.ctx = ctx;
        this.call = call;
        this.state = state;
    }

    /**
     * Prepares protected call {@code c} (its body buffered, its claim attached when it has a
     * record) to {@link #start}; {@code onSettled} runs once it has settled.
     */
    static ProtectedCallRunner prepare(ChannelHandlerContext ctx, ProxyCall c, CallServices services, ServerState state,
            String clientIp, Runnable onSettled) {
        ProtectedCallRunner runner = new ProtectedCallRunner(ctx, c, state);
        state.callStarted();
        c.runsWithoutClient();
        // A call without a record takes its DLQ replay's proof here (a recorded one did at its claim).
        ReplayAuthority.Replay replay = c.protection() == null ? services.replays().take(c.request()) : null;
        CallIdentity identity = c.protection() != null ? c.protection().identity()
                : services.unrecordedIdentity(c, services.bizId(c, new NettyRequestView(c)), replay);
        RecordedProtection recorded = c.protection() instanceof RecordedProtection ? (RecordedProtection) c.protection() : null;
        // A recorded call's PROCESSING receipt went with its claim; its final one goes with its record.
        Instant createdAt = recorded != null ? recorded.createdAt() : ReplayAuthority.createdAt(replay, services.recorder().now());
        boolean writesReceipt = recorded == null && (c.protection() == null || c.protection().writesReceipt());
        Deadline deadline = Deadline.of(c.route().timeouts().total(), c.request().headers().get(TIMEOUT_MS),
                c.request().headers().get(DEADLINE), services.ticker(), services.clock());
        c.request().headers().remove(TIMEOUT_MS).remove(DEADLINE);
        HeaderRewrite.toUpstream(c.request(), c.route(), c.pathAndQuery(), c.originalHost(), clientIp, c.clientScheme());
        services.routeBudget(c.route()).recordRequest();
        if (writesReceipt) {
            services.recorder().started(c, identity, createdAt);
        }
        runner.settlement = new Settlement(services, c, identity, recorded, createdAt, writesReceipt, onSettled);
        runner.execution = new ProtectedCall(c, identity, c.request().headers(), services, runner, deadline, runner.settlement);
        return runner;
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
            settlement.lastWrite();
            answered(ctx.write(content));
        } else {
            ctx.write(content);
        }
    }

    private void answered(ChannelFuture last) {
        last.addListener(f -> {
            if (!answered) {
                answered = true;
                state.callEnded();
                call.end();  // in flight until here too, whether or not its client stayed
            }
        });
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
        settlement.lastWrite();
        answered(Answers.write(ctx, resp, state.draining()));
    }

    @Override
    public void replay(dev.idemproxy.core.store.StoredResponse response, String callId, int attempts) {
        FullHttpResponse r = Replays.response(ctx.alloc(), response, callId, attempts, false);
        r.headers().remove(CallIdentity.IDEMPOTENT_REPLAYED);
        call.addBytesOut(r.content().readableBytes());
        settlement.lastWrite();
        answered(Answers.write(ctx, r, state.draining()));
    }

    @Override
    public void abort() {
        settlement.lastWrite();
        answered(ctx.close());
    }
}
