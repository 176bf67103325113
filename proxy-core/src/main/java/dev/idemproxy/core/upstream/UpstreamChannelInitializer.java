package dev.idemproxy.core.upstream;

import dev.idemproxy.core.util.ProxyHeaders;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpDecoderConfig;
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
    static final String HTTP_CODEC = "httpCodec";
    static final String IDLE = "idle";
    static final String UPSTREAM = "upstream";

    /** Netty's client defaults but for the sizes, with the proxy's header-name check. */
    private static final HttpDecoderConfig DECODER = new HttpDecoderConfig()
            .setMaxInitialLineLength(8192)
            .setMaxHeaderSize(64 * 1024)
            .setMaxChunkSize(64 * 1024)
            .setHeadersFactory(ProxyHeaders.HEADERS);

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
        p.addLast(HTTP_CODEC, new HttpClientCodec(DECODER, false, false));
        p.addLast(IDLE, new UpstreamIdleHandler(key.idle().toNanos()));
        p.addLast(UPSTREAM, new UpstreamHandler());
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
