package dev.idemproxy.core.forward;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;

/**
 * The client pipeline's HTTP handlers, as a CONNECT sees them: the part of the pipeline it takes
 * away when the connection stops carrying plain HTTP, and how to build it again behind TLS for an
 * intercepted CONNECT. Handlers before {@link #first()} belong to the connection and stay.
 * Implemented by the pipeline's initializer.
 */
public interface HttpStack {
    /** The name of the first handler of the HTTP stack. */
    String first();

    /** The name of the HTTP codec, which may hold bytes that came after the CONNECT's head. */
    String codec();

    /**
     * Adds, at the end of {@code p}, {@code tls} and after it the HTTP handlers for the requests
     * inside an intercepted CONNECT to {@code target}, which they are routed by.
     */
    void addIntercepted(ChannelPipeline p, ChannelHandler tls, ConnectTarget target);
}
