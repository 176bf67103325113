package dev.idemproxy.core.store.redis;

import dev.idemproxy.core.net.IoLoops;
import dev.idemproxy.core.net.Transport;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a Redis store's connections share for its whole life, made once even when connecting
 * takes many attempts: Lettuce's client resources (its threads, or the proxy's loops) and the
 * address resolver group, which Lettuce does not close when it was given one. Closed by whoever
 * holds them last: the store once connected, else the connector. Thread-safe.
 */
final class LettuceResources implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RedisStore.class);

    /**
     * Signals the first TCP connect ({@link #connecting}, {@link #connected}), and: every call on an event loop sends its commands as it goes, and Lettuce flushes each one: a
     * write to the socket per command, and a read per command on the server's side. This handler
     * holds the flushes of one turn of the loop (or of one read of replies) and flushes once at its
     * end, so the commands of every call served in that turn leave in one write. Netty schedules
     * that flush itself: no command waits for another.
     */
    private record Customizer(CompletableFuture<Void> connecting, CompletableFuture<Void> connected) implements NettyCustomizer {
        @Override
        public void afterChannelInitialized(Channel channel) {
            channel.pipeline().addFirst("flush-consolidation", new FlushConsolidationHandler(256, true));
            if (!connected.isDone()) {
                channel.pipeline().addFirst("connect-signal", new ConnectSignal(connecting, connected));
            }
        }
    }

    /**
     * Completes {@code connecting} as the channel's TCP connect is sent, and {@code connected} when
     * it is made (on the channel's loop, at once: not through Lettuce's event bus, whose events
     * reach their subscribers later, on other threads); then leaves the pipeline.
     */
    private static final class ConnectSignal extends ChannelDuplexHandler {
        private final CompletableFuture<Void> connecting;
        private final CompletableFuture<Void> connected;

        ConnectSignal(CompletableFuture<Void> connecting, CompletableFuture<Void> connected) {
            this.connecting = connecting;
            this.connected = connected;
        }

        @Override
        public void connect(ChannelHandlerContext ctx, SocketAddress remote, SocketAddress local, ChannelPromise promise) {
            connecting.complete(null);
            ctx.connect(remote, local, promise);
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            connected.complete(null);
            ctx.pipeline().remove(this);
            ctx.fireChannelActive();
        }
    }

    private final ClientResources resources;
    private final OffLoopAddressResolverGroup resolver;
    private final CompletableFuture<Void> connecting;
    private final CompletableFuture<Void> connected;

    private LettuceResources(ClientResources resources, OffLoopAddressResolverGroup resolver,
            CompletableFuture<Void> connecting, CompletableFuture<Void> connected) {
        this.resources = resources;
        this.resolver = resolver;
        this.connecting = connecting;
        this.connected = connected;
    }

    /**
     * Resources whose connections run on {@code loops} (when its transport is the one Lettuce
     * uses; otherwise, and when null, on Lettuce's own threads). No I/O.
     */
    static LettuceResources create(IoLoops loops) {
        // Lettuce's own per-command latency statistics (on when LatencyUtils is on the class path)
        // cost its I/O thread about a sixth of its time here; idemproxy_store_duration_seconds
        // measures the same from the caller's side.
        preferTransport(loops != null ? loops.transport() : Transport.best());
        OffLoopAddressResolverGroup resolver = new OffLoopAddressResolverGroup();
        CompletableFuture<Void> connecting = new CompletableFuture<>();
        CompletableFuture<Void> connected = new CompletableFuture<>();
        DefaultClientResources.Builder builder = DefaultClientResources.builder()
                .addressResolverGroup(resolver)
                .commandLatencyRecorder(CommandLatencyRecorder.disabled())
                .nettyCustomizer(new Customizer(connecting, connected));
        if (loops != null && SharedLoopsProvider.fits(loops)) {
            builder.eventLoopGroupProvider(new SharedLoopsProvider(loops));
        } else if (loops != null) {
            log.info("Redis connections on threads of their own: Lettuce's transport ({}) is not the proxy's ({})",
                    io.lettuce.core.resource.Transports.socketChannelClass().getSimpleName(), loops.transport());
        }
        return new LettuceResources(builder.build(), resolver, connecting, connected);
    }

    ClientResources resources() {
        return resources;
    }

    /**
     * Completes when the first TCP connect is sent: its host name resolved, its channel made and
     * registered. What comes before, the first use of Lettuce, Netty and Reactor in a cold JVM
     * (classes loaded, native transports, threads started), can take far longer than a connect.
     */
    CompletableFuture<Void> connecting() {
        return connecting;
    }

    /** Completes when the first TCP connection is made, before Redis has answered anything. */
    CompletableFuture<Void> connected() {
        return connected;
    }

    /**
     * Points Lettuce at {@code transport}, so that its connections can share the proxy's loops:
     * Lettuce picks its transport once per JVM, when its transports first load, from its own
     * switches ({@code io.lettuce.core.epoll}, {@code io.lettuce.core.iouring}), and prefers
     * epoll when both native transports load. A switch set by hand is left alone; once Lettuce
     * has picked, {@link SharedLoopsProvider#fits} tells whether the pick matches.
     */
    private static void preferTransport(Transport transport) {
        if (transport != Transport.EPOLL) {
            System.getProperties().putIfAbsent("io.lettuce.core.epoll", "false");
        }
        if (transport == Transport.NIO) {
            System.getProperties().putIfAbsent("io.lettuce.core.iouring", "false");
        }
    }

    /** Shuts down Lettuce's threads (not the proxy's loops) and the resolver. Blocking. */
    @Override
    public void close() {
        try {
            resources.shutdown();
        } finally {
            resolver.close();
        }
    }
}
