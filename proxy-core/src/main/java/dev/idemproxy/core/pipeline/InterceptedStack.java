package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.forward.ConnectTarget;
import dev.idemproxy.core.forward.ForwardProxy;
import dev.idemproxy.core.forward.HttpStack;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import java.util.function.BiConsumer;

/**
 * The client pipeline as a CONNECT sees it ({@link HttpStack}): the HTTP stack from {@code httpCodec}
 * on, which a tunnel takes away, and which an interception builds again behind {@code tls}, routed
 * by the CONNECT's host. Gives each channel its CONNECT handler. This class is immutable.
 */
final class InterceptedStack implements HttpStack {
    private final ForwardProxy forward;
    private final ServerState state;
    private final BiConsumer<ChannelPipeline, ConnectTarget> httpHandlers;

    /** @param httpHandlers adds the HTTP stack at the end of a pipeline, its requests routed by a target (or none) */
    InterceptedStack(ForwardProxy forward, ServerState state, BiConsumer<ChannelPipeline, ConnectTarget> httpHandlers) {
        this.forward = forward;
        this.state = state;
        this.httpHandlers = httpHandlers;
    }

    /** A new CONNECT handler for one client channel, deciding on the live route table. */
    ChannelHandler connectHandler() {
        return forward.newConnectHandler(state::routes, this);
    }

    @Override
    public String first() {
        return PipelineNames.HTTP_CODEC;
    }

    @Override
    public String codec() {
        return PipelineNames.HTTP_CODEC;
    }

    @Override
    public void addIntercepted(ChannelPipeline p, ChannelHandler tls, ConnectTarget target) {
        p.addLast(PipelineNames.TLS, tls);
        httpHandlers.accept(p, target);
    }
}
