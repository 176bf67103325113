package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.call.CallServices;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;

/**
 * Builds the client-side pipeline; the body below is the table of {@link PipelineNames}, in
 * order. A connection over {@code limits.maxConnections} gets no pipeline: it is closed as it is
 * accepted, and counted. This class is thread-safe and shared by all client channels of one server.
 */
public final class ProxyChannelInitializer extends ChannelInitializer<SocketChannel> {
    private final ServerPolicy server;
    private final ServerState state;
    private final CallServices services;
    private final ChannelGroup clients;
    private final ConnectionLimit connections;
    private final FrontRejections rejections;

    public ProxyChannelInitializer(ServerPolicy server, ServerState state, CallServices services, ChannelGroup clients) {
        this.server = server;
        this.state = state;
        this.services = services;
        this.clients = clients;
        this.connections = new ConnectionLimit(server.limits().maxConnections());
        this.rejections = new FrontRejections(services.log(), server.limits().maxConnections(), Ticker.system());
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        if (!connections.admit(ch)) {
            rejections.connectionRefused();
            ch.close();
            return;
        }
        addHandlers(ch.pipeline(), ch);
    }

    /** The table itself; separate so a test can build it on an {@code EmbeddedChannel}. */
    void addHandlers(ChannelPipeline p, Channel ch) {
        clients.add(ch);
        LimitsPolicy limits = server.limits();
        p.addLast(PipelineNames.HTTP_CODEC, new ServerCodec(server.maxInitialLine(), server.maxHeaderSize()));
        p.addLast(PipelineNames.TIMEOUTS, new FrontTimeoutHandler(limits, rejections));
        p.addLast(PipelineNames.SEQUENCER, new RequestSequencer());
        p.addLast(PipelineNames.KEEP_ALIVE, new KeepAliveHandler());
        p.addLast(PipelineNames.GUARD, new RequestGuardHandler(limits.underscoreHeaders(), rejections));
        p.addLast(PipelineNames.ROUTE, new RouteHandler(state, services));
        p.addLast(PipelineNames.BODY, new BodyAggregatorHandler(services.log()));
        p.addLast(PipelineNames.IDEMPOTENCY, new IdempotencyHandler(services));
        p.addLast(PipelineNames.FORWARD, new ForwardHandler(services, state));
        p.addLast(PipelineNames.PROBLEMS, ProblemHandler.INSTANCE);
    }
}
