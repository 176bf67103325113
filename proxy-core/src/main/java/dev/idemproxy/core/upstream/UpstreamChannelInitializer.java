package dev.idemproxy.core.upstream;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * The upstream connection's pipeline, read top to bottom:
 * {@code ssl} (https only) → {@code httpCodec} → {@code idle} → {@code upstream}.
 * This class is immutable; its instances are shared by all connections of one pool.
 */
final class UpstreamChannelInitializer extends ChannelInitializer<SocketChannel> {
    static final String SSL = "ssl";
    private final PoolKey key;
    private final SslContext sslContext;

    UpstreamChannelInitializer(PoolKey key, SslContext sslContext) {
        this.key = key;
        this.sslContext = sslContext;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        ChannelPipeline p = ch.pipeline();
        if (sslContext != null) {
            addTls(ch, p);
        }
        UpstreamPipeline.addHttp(p, key.idle());
    }

    private void addTls(SocketChannel ch, ChannelPipeline p) {
        String serverName = key.tlsPolicy().serverName() != null ? key.tlsPolicy().serverName() : key.host();
        SslHandler ssl = sslContext.newHandler(ch.alloc(), serverName, key.port());
        SSLEngine engine = ssl.engine();
        SSLParameters params = engine.getSSLParameters();
        params.setEndpointIdentificationAlgorithm("HTTPS");
        engine.setSSLParameters(params);
        ssl.setHandshakeTimeoutMillis(key.connect().toMillis());
        p.addLast(SSL, ssl);
    }
}
