package dev.idemproxy.app.admin;

import static java.util.Objects.requireNonNull;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;

/**
 * The admin listener's pipeline, one handler per job:
 * <pre>
 * bytes → idle → idleClose → httpCodec → keepAlive → aggregator → request
 * </pre>
 * {@code idle}/{@code idleClose} close a connection silent for {@value #IDLE_SECONDS} s;
 * {@code httpCodec} parses (a malformed request reaches {@code request} flagged, which answers 400
 * and closes); {@code keepAlive} applies {@code Connection} semantics to every response written
 * after it; {@code aggregator} buffers bodies up to {@value #MAX_BODY_BYTES} bytes (else 413);
 * {@code request} authenticates, routes and answers. Thread-safe: shared by all admin channels.
 */
final class AdminChannelInitializer extends ChannelInitializer<SocketChannel> {
    static final int IDLE_SECONDS = 60;
    static final int MAX_BODY_BYTES = 64 * 1024;

    private final AdminRoutes routes;
    private final BearerAuth auth;

    AdminChannelInitializer(AdminRoutes routes, BearerAuth auth) {
        this.routes = requireNonNull(routes, "routes");
        this.auth = requireNonNull(auth, "auth");
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        ChannelPipeline p = ch.pipeline();
        p.addLast("idle", new IdleStateHandler(0, 0, IDLE_SECONDS, TimeUnit.SECONDS));
        p.addLast("idleClose", IdleCloseHandler.INSTANCE);
        p.addLast("httpCodec", new HttpServerCodec());
        p.addLast("keepAlive", new HttpServerKeepAliveHandler());
        p.addLast("aggregator", new ProblemAggregator(MAX_BODY_BYTES));
        p.addLast("request", new AdminRequestHandler(routes, auth));
    }
}
