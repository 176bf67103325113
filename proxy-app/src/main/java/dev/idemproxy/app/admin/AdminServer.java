package dev.idemproxy.app.admin;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.AdminPolicy;
import dev.idemproxy.core.HostPort;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The admin listener (docs/admin-api.md): {@code /healthz}, {@code /readyz}, {@code /metrics},
 * {@code /config}, plus whatever extra {@link AdminRoutes} the wiring passes in (receipts, DLQ).
 * It runs on its own single event-loop thread, apart from the proxy's loops, so a scrape never
 * delays a proxied call. With {@code admin.token} set, every path but the two probes needs
 * {@code Authorization: Bearer <token>}.
 *
 * <p>With {@code admin.metricsListen} set, a second listener on the same thread serves
 * {@code /metrics}, {@code /healthz} and {@code /readyz} only, never asking for the token: for a
 * scraper that should not hold it. Every other path there is 404.
 *
 * <p>Lifecycle: construct, {@link #start()}, {@link #close()}. Thread-safe; {@code start} and
 * {@code close} may be called from any thread, {@code close} more than once.
 */
public final class AdminServer implements AutoCloseable {
    private final AdminPolicy policy;
    private final AdminRoutes routes;
    /** What the metrics listener serves: the scrape and the probes, nothing that needs the token. */
    private final AdminRoutes metricsRoutes;

    private EventLoopGroup group;
    private Channel channel;
    private Channel metricsChannel;
    private boolean closed;

    /**
     * @param policy          where to listen and the token, if any
     * @param registry        scraped by {@code GET /metrics}
     * @param ready           answers {@code GET /readyz}; must not block (e.g. the store's last known state)
     * @param effectiveConfig the effective config as a JSON-serialisable tree, secrets already redacted
     * @param extraRoutes     further endpoints; a (method, path) that clashes with a built-in one is an error
     */
    public AdminServer(AdminPolicy policy, PrometheusMeterRegistry registry, BooleanSupplier ready,
            Supplier<Object> effectiveConfig, AdminRoutes extraRoutes) {
        this.policy = requireNonNull(policy, "policy");
        HealthEndpoints health = new HealthEndpoints(ready);
        MetricsEndpoint metrics = new MetricsEndpoint(registry);
        ConfigEndpoint config = new ConfigEndpoint(effectiveConfig);
        AdminRoutes builtIn = AdminRoutes.builder()
                .get("/healthz", health::healthz)
                .get("/readyz", health::readyz)
                .get("/metrics", metrics::scrape)
                .get("/config", config::config)
                .build();
        this.routes = builtIn.plus(requireNonNull(extraRoutes, "extraRoutes"));
        this.metricsRoutes = AdminRoutes.builder()
                .get("/healthz", health::healthz)
                .get("/readyz", health::readyz)
                .get("/metrics", metrics::scrape)
                .build();
    }

    /**
     * Checks the policy and binds the listener (and the metrics listener, if configured); returns
     * once they accept connections.
     *
     * @throws IllegalArgumentException when {@code admin.listen} is not loopback and no token is set
     * @throws IllegalStateException    when an address cannot be bound, or the server was started or closed
     */
    public synchronized AdminServer start() {
        if (group != null || closed) {
            throw new IllegalStateException("admin listener already " + (closed ? "closed" : "started"));
        }
        policy.requireSafe();
        boolean epoll = Epoll.isAvailable();
        group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("idemproxy-admin", true),
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        Class<? extends ServerChannel> channelType = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        String key = "admin.listen " + policy.listen();
        try {
            channel = bind(channelType, routes, new BearerAuth(policy.token()), policy.listen());
            if (policy.hasMetricsListener()) {
                key = "admin.metricsListen " + policy.metricsListen();
                metricsChannel = bind(channelType, metricsRoutes, new BearerAuth(""), policy.metricsListen());
            }
        } catch (Exception e) {
            if (channel != null) {
                channel.close().syncUninterruptibly();
                channel = null;
            }
            shutdownGroup();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException(key + ": cannot listen: " + e.getMessage(), e);
        }
        return this;
    }

    private Channel bind(Class<? extends ServerChannel> channelType, AdminRoutes served, BearerAuth auth,
            HostPort address) throws InterruptedException {
        return new ServerBootstrap()
                .group(group)
                .channel(channelType)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new AdminChannelInitializer(served, auth))
                .bind(address.toSocketAddress())
                .sync()
                .channel();
    }

    /** The bound address; with port 0 in the policy, this has the real port. */
    public synchronized InetSocketAddress localAddress() {
        if (channel == null) {
            throw new IllegalStateException("admin listener not started");
        }
        return (InetSocketAddress) channel.localAddress();
    }

    public int port() {
        return localAddress().getPort();
    }

    /** The metrics listener's bound address (with port 0 in the policy, the real port); empty when none is configured. */
    public synchronized Optional<InetSocketAddress> metricsAddress() {
        if (channel == null) {
            throw new IllegalStateException("admin listener not started");
        }
        return Optional.ofNullable(metricsChannel).map(c -> (InetSocketAddress) c.localAddress());
    }

    /** Stops listening, closes open admin connections and stops the event loop; waits for that. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (channel != null) {
            channel.close().syncUninterruptibly();
        }
        if (metricsChannel != null) {
            metricsChannel.close().syncUninterruptibly();
        }
        shutdownGroup();
    }

    private void shutdownGroup() {
        if (group != null) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
