package dev.idemproxy.core.upstream;

import dev.idemproxy.core.util.Failures;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import dev.idemproxy.core.net.Transport;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keep-alive connections to one upstream origin, kept per event loop: a connection is only ever
 * used from the loop that created it, which is the client connection's loop, so a call never
 * hops threads (Netty's HexDumpProxy shares the loop the same way). Each loop's deque is touched
 * only from that loop. This class is thread-safe.
 */
final class UpstreamPool implements UpstreamConnection.Home {

    private final PoolKey key;
    private final Transport transport;
    private final HostResolver resolver;
    private final UpstreamChannelInitializer initializer;
    private final ConcurrentHashMap<EventLoop, IdleConnections> idle = new ConcurrentHashMap<>();

    UpstreamPool(PoolKey key, Transport transport, HostResolver resolver, UpstreamChannelInitializer initializer) {
        this.key = key;
        this.transport = transport;
        this.resolver = resolver;
        this.initializer = initializer;
    }

    PoolKey key() {
        return key;
    }

    /** An idle pooled channel on {@code loop}, ready now, or null. Must be called on {@code loop}. */
    IdleConnections.Idle pollIdle(EventLoop loop) {
        IdleConnections connections = idle.get(loop);
        if (connections == null) {
            return null;
        }
        IdleConnections.Idle i;
        while ((i = connections.pollNewest()) != null) {
            if (i.channel.isActive() && !i.handler.isAttached()) {
                return i;
            }
            i.channel.close();
        }
        return null;
    }

    /**
     * A connected (and, for https, handshaken) channel on {@code loop}, pooled or new.
     * Must be called on {@code loop}; the promise completes on it.
     */
    Future<Channel> acquire(EventLoop loop) {
        IdleConnections.Idle i = pollIdle(loop);
        return i != null ? loop.newSucceededFuture(i.channel) : connect(loop);
    }

    private Future<Channel> connect(EventLoop loop) {
        Promise<Channel> promise = loop.newPromise();
        resolver.resolve(key.host(), key.port()).whenComplete((address, error) -> loop.execute(() -> {
            if (error != null) {
                promise.tryFailure(Failures.cause(error));
                return;
            }
            Bootstrap b = new Bootstrap()
                    .group(loop)
                    .channel(transport.clientChannel())
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, key.connect().toMillis()))
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.SO_KEEPALIVE, true)
                    .handler(initializer);
            ChannelFuture cf = b.connect(address);
            cf.addListener(f -> {
                if (!f.isSuccess()) {
                    promise.tryFailure(f.cause());
                    return;
                }
                SslHandler ssl = cf.channel().pipeline().get(SslHandler.class);
                if (ssl == null) {
                    promise.trySuccess(cf.channel());
                    return;
                }
                ssl.handshakeFuture().addListener(h -> {
                    if (h.isSuccess()) {
                        promise.trySuccess(cf.channel());
                    } else {
                        cf.channel().close();
                        promise.tryFailure(new TlsHandshakeException(key, h.cause()));
                    }
                });
            });
        }));
        return promise;
    }

    /** Returns a healthy connection whose exchange ended cleanly; must be called on its loop. */
    @Override
    public void takeBack(Channel ch) {
        release(ch, (UpstreamHandler) ch.pipeline().get(UpstreamPipeline.UPSTREAM));
    }

    private void release(Channel ch, UpstreamHandler handler) {
        IdleConnections connections = idle.computeIfAbsent(ch.eventLoop(),
                l -> new IdleConnections(l, key.pool().idleTimeout().toNanos()));
        if (!ch.isActive() || connections.size() >= key.pool().maxIdle()) {
            ch.close();
            return;
        }
        connections.add(ch, handler);
    }

    /** Closes every idle connection; leased ones close when their calls end. */
    void closeIdle() {
        idle.forEach((loop, connections) -> loop.execute(connections::closeAll));
    }

    /**
     * Failure of the TLS handshake with the upstream: a connect failure, nothing was sent. The
     * message names the upstream and the reason (an untrusted or mismatched certificate, say).
     */
    static final class TlsHandshakeException extends Exception {
        TlsHandshakeException(PoolKey upstream, Throwable cause) {
            super("TLS handshake failed with " + upstream.host() + ":" + upstream.port() + ": " + reason(cause), cause);
        }

        private static String reason(Throwable cause) {
            Throwable c = cause;
            while (c.getCause() != null && (c.getMessage() == null || c instanceof io.netty.handler.codec.DecoderException)) {
                c = c.getCause();
            }
            return c.getMessage() != null ? c.getMessage() : c.getClass().getSimpleName();
        }
    }
}
