package dev.idemproxy.core.upstream;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpDecoderConfig;
import dev.idemproxy.core.util.ProxyHeaders;
import java.time.Duration;

/**
 * The HTTP part of an upstream connection's pipeline, {@code httpCodec} → {@code idle} →
 * {@code upstream}, for {@link UpstreamChannelInitializer} and for any other
 * {@link UpstreamConnector} (the simulation's, over channels of its own). Stateless.
 */
public final class UpstreamPipeline {
    static final String HTTP_CODEC = "httpCodec";
    static final String IDLE = "idle";
    static final String UPSTREAM = "upstream";

    /** Netty's client defaults but for the sizes, with the proxy's header-name check. */
    private static final HttpDecoderConfig DECODER = new HttpDecoderConfig()
            .setMaxInitialLineLength(8192)
            .setMaxHeaderSize(64 * 1024)
            .setMaxChunkSize(64 * 1024)
            .setHeadersFactory(ProxyHeaders.HEADERS)
            .setTrailersFactory(ProxyHeaders.TRAILERS);

    private UpstreamPipeline() {
    }

    /** Adds the HTTP handlers at the pipeline's end; {@code idle} is the route's {@code timeouts.idle}. */
    public static void addHttp(ChannelPipeline p, Duration idle) {
        p.addLast(HTTP_CODEC, new HttpClientCodec(DECODER, false, false));
        p.addLast(IDLE, new UpstreamIdleHandler(idle.toNanos()));
        p.addLast(UPSTREAM, new UpstreamHandler());
    }
}
