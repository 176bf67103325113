package dev.idemproxy.core.pipeline;

import io.netty.channel.Channel;

/**
 * The simulation's way to the client pipeline's table ({@link ProxyChannelInitializer}'s
 * package-private {@code addHandlers}) on a channel of its own: the handlers a real accepted
 * connection gets, in the same order. Stateless.
 */
public final class SimPipelines {
    private SimPipelines() {}

    public static void install(ProxyChannelInitializer initializer, Channel ch) {
        initializer.addHandlers(ch.pipeline(), ch);
    }

    /** A server's count of calls in flight (a protected call counts until its answer's last write). */
    public static int inFlight(ServerState state) {
        return state.inFlight();
    }
}
