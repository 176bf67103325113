package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.ServerPolicy;
import dev.idemproxy.core.call.CallServices;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;

/**
 * Builds the client-side pipeline; the body below is the table of {@link PipelineNames}, in
 * order. This class is immutable and shared by all client channels of one server.
 */
public final class ProxyChannelInitializer extends ChannelInitializer<SocketChannel> {
    private final ServerPolicy server;
    private final ServerState state;
    private final CallServices services;
    private final ChannelGroup clients;

    public ProxyChannelInitializer(ServerPolicy server, ServerState state, CallServices services, ChannelGroup clients) {
        this.server = server;
        this.state = state;
        this.services = services;
        this.clients = clients;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        addHandlers(ch.pipeline(), ch);
    }

    /** The table itself; separate so a test can build it on an {@code EmbeddedChannel}. */
    void addHandlers(ChannelPipeline p, Channel ch) {
        clients.add(ch);
        // Reader idleness is enough: a connection with a call in flight is never closed for idleness,
        // and watching writes would add a listener to every response write.
        p.addLast(PipelineNames.IDLE, new IdleStateHandler(server.limits().idleTimeout().toMillis(), 0, 0, TimeUnit.MILLISECONDS));
        p.addLast(PipelineNames.HTTP_CODEC, new ServerCodec(server.maxInitialLine(), server.maxHeaderSize()));
        p.addLast(PipelineNames.IDLE_CLOSE, new IdleCloseHandler());
        p.addLast(PipelineNames.SEQUENCER, new RequestSequencer());
        p.addLast(PipelineNames.KEEP_ALIVE, new KeepAliveHandler());
        p.addLast(PipelineNames.GUARD, new RequestGuardHandler());
        p.addLast(PipelineNames.ROUTE, new RouteHandler(state, services.log()));
        p.addLast(PipelineNames.BODY, new BodyAggregatorHandler(services.log()));
        p.addLast(PipelineNames.IDEMPOTENCY, new IdempotencyHandler(services));
        p.addLast(PipelineNames.FORWARD, new ForwardHandler(services, state));
        p.addLast(PipelineNames.PROBLEMS, ProblemHandler.INSTANCE);
    }
}
