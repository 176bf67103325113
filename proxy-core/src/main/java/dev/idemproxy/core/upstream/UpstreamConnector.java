package dev.idemproxy.core.upstream;

import dev.idemproxy.core.route.Route;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;

/**
 * Where calls lease their upstream connections: {@link UpstreamPools} in the proxy (pooled
 * keep-alive connections per event loop), a simulated upstream in the deterministic simulation,
 * which builds its connections with {@link UpstreamPipeline} and leases them with
 * {@link UpstreamConnection#lease}. A leased connection's events reach its
 * {@link UpstreamListener} on the caller's loop. Implementations are thread-safe.
 */
public interface UpstreamConnector {

    /**
     * Leases an idle connection at once, or returns null (then use {@link #acquire}): the fast
     * path of a keep-alive proxy. Must be called on {@code loop}.
     */
    UpstreamConnection tryPooled(Route route, EventLoop loop, UpstreamListener listener);

    /**
     * Leases a connection for {@code route} on {@code loop}, attached to {@code listener}; the
     * future fails with the connect failure (nothing was sent). Must be called on {@code loop}; the
     * future completes on it.
     */
    Future<UpstreamConnection> acquire(Route route, EventLoop loop, UpstreamListener listener);
}
