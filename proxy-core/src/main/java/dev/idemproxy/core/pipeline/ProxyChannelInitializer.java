package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.call.CallServices;
import dev.idemproxy.core.forward.ConnectTarget;
import dev.idemproxy.core.forward.ForwardProxy;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;

/**
 * Builds the client-side pipeline; the body below is the table of {@link PipelineNames}, in
 * order. A connection over {@code limits.maxConnections} gets no pipeline: it is closed as it is
 * accepted, and counted. From {@code httpCodec} on the handlers are the HTTP stack, which a CONNECT
 * takes away (a tunnel) or builds again behind TLS (an interception, whose requests are routed by
 * the CONNECT's host). This class is thread-safe and shared by all client channels of one server.
 */
public final class ProxyChannelInitializer extends ChannelInitializer<SocketChannel> {
    private final ServerPolicy server;
    private final ServerState state;
    private final CallServices services;
    private final ChannelGroup clients;
    private final ConnectionLimit connections;
    private final FrontRejections rejections;
    /**
     * The forward proxy's side of the pipeline, or null without {@code forwardProxy} (then CONNECT
     * is the guard's 405). Its own class, made only with a forward proxy: nothing of the forward
     * package loads otherwise.
     */
    private final InterceptedStack intercepted;

    public ProxyChannelInitializer(ServerPolicy server, ServerState state, CallServices services, ChannelGroup clients) {
        this(server, state, services, clients, null);
    }

    /** @param forward the forward proxy, or null when the config has no {@code forwardProxy} */
    public ProxyChannelInitializer(ServerPolicy server, ServerState state, CallServices services, ChannelGroup clients,
            ForwardProxy forward) {
        this.server = server;
        this.state = state;
        this.services = services;
        this.clients = clients;
        this.connections = new ConnectionLimit(server.limits().maxConnections());
        this.rejections = new FrontRejections(services.log(), server.limits().maxConnections(), services.ticker());
        this.intercepted = forward == null ? null : new InterceptedStack(forward, state, this::addHttpHandlers);
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
        addHttpHandlers(p, null);
    }

    /** The HTTP stack; {@code target} is an intercepted CONNECT's, whose requests it routes by, or null. */
    void addHttpHandlers(ChannelPipeline p, ConnectTarget target) {
        LimitsPolicy limits = server.limits();
        p.addLast(PipelineNames.HTTP_CODEC, new ServerCodec(server.maxInitialLine(), server.maxHeaderSize()));
        p.addLast(PipelineNames.TIMEOUTS, new FrontTimeoutHandler(limits, rejections));
        p.addLast(PipelineNames.SEQUENCER, new RequestSequencer());
        p.addLast(PipelineNames.KEEP_ALIVE, new KeepAliveHandler());
        if (intercepted != null && target == null) {
            p.addLast(PipelineNames.CONNECT, intercepted.connectHandler());
        }
        p.addLast(PipelineNames.GUARD, new RequestGuardHandler(limits.underscoreHeaders(), rejections));
        p.addLast(PipelineNames.ROUTE, new RouteHandler(state, services, target));
        p.addLast(PipelineNames.BODY, new BodyAggregatorHandler(services.log()));
        p.addLast(PipelineNames.IDEMPOTENCY, new IdempotencyHandler(services, state));
        p.addLast(PipelineNames.FORWARD, new ForwardHandler(services, state));
        p.addLast(PipelineNames.PROBLEMS, ProblemHandler.INSTANCE);
    }
}
