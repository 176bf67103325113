package dev.idemproxy.core.upstream;

import dev.idemproxy.core.route.TlsPolicy;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.net.Transport;
import dev.idemproxy.core.route.Route;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLException;

/**
 * All upstream pools, one per {@link PoolKey}, and the TLS contexts they use. Prepared for a
 * route table before it goes live, so reading CA files never happens on an event loop.
 * This class is thread-safe.
 */
public final class UpstreamPools implements UpstreamConnector, AutoCloseable {
    private final Transport transport;
    private final HostResolver resolver = new HostResolver();
    private final ConcurrentHashMap<PoolKey, UpstreamPool> pools = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<TlsPolicy, SslContext> sslContexts = new ConcurrentHashMap<>();

    public UpstreamPools(Transport transport) {
        this.transport = requireNonNull(transport, "transport");
    }

    /**
     * Creates the pools and TLS contexts the routes need (the routes of their receipt endpoints too,
     * which the caller adds).
     *
     * @throws IllegalArgumentException when a route's CA file cannot be used
     */
    public void prepare(List<Route> routes) {
        for (Route r : routes) {
            if (r.forwardsToTarget()) {
                // Its pools are made per target as calls come; the TLS context they share is made now.
                sslContext(r.name(), r.tls());
            } else {
                pool(r);
            }
        }
    }

    private UpstreamPool pool(Route r) {
        PoolKey key = PoolKey.of(r);
        UpstreamPool p = pools.get(key);
        if (p != null) {
            return p;
        }
        SslContext ssl = key.tls() ? sslContext(r.name(), key.tlsPolicy()) : null;
        return pools.computeIfAbsent(key, k -> new UpstreamPool(k, transport, resolver, new UpstreamChannelInitializer(k, ssl)));
    }

    private SslContext sslContext(String routeName, TlsPolicy tls) {
        SslContext existing = sslContexts.get(tls);
        if (existing != null) {
            return existing;
        }
        try {
            SslContextBuilder b = SslContextBuilder.forClient();
            if (tls.caFile() != null) {
                b.trustManager(tls.caFile().toFile());
            }
            SslContext ctx = b.build();
            sslContexts.putIfAbsent(tls, ctx);
            return sslContexts.get(tls);
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException("route " + routeName + ": cannot use tls.caFile " + tls.caFile() + ": "
                    + e.getMessage(), e);
        }
    }

    /** Resolves {@code host} off the event loops (IP literals at once); for connections made outside the pools. */
    public CompletableFuture<InetSocketAddress> resolve(String host, int port) {
        return resolver.resolve(host, port);
    }

    /** The fast path of a keep-alive proxy: no promise, no listener, no pause in reading. */
    @Override
    public UpstreamConnection tryPooled(Route route, EventLoop loop, UpstreamListener listener) {
        UpstreamPool pool = pool(route);
        IdleConnections.Idle idle = pool.pollIdle(loop);
        if (idle == null) {
            return null;
        }
        idle.handler.attach(listener);
        return new UpstreamConnection(idle.channel, pool, idle.handler);
    }

    @Override
    public Future<UpstreamConnection> acquire(Route route, EventLoop loop, UpstreamListener listener) {
        UpstreamPool pool = pool(route);
        Promise<UpstreamConnection> result = loop.newPromise();
        pool.acquire(loop).addListener(f -> {
            if (!f.isSuccess()) {
                result.tryFailure(f.cause());
                return;
            }
            Channel ch = (Channel) f.getNow();
            UpstreamHandler h = ch.pipeline().get(UpstreamHandler.class);
            h.attach(listener);
            if (!result.trySuccess(new UpstreamConnection(ch, pool, h))) {
                h.detach();
                ch.close();
            }
        });
        return result;
    }

    /** Closes idle connections of every pool. */
    @Override
    public void close() {
        pools.values().forEach(UpstreamPool::closeIdle);
        resolver.close();
    }
}
