package dev.idemproxy.core;

import dev.idemproxy.core.receipt.ReceiptClient;
import dev.idemproxy.core.net.IoLoops;
import dev.idemproxy.core.net.Transport;
import dev.idemproxy.core.pipeline.ServerDrainEvent;
import dev.idemproxy.core.util.Ticker;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.call.CallServices;
import dev.idemproxy.core.call.TaskBudgets;
import dev.idemproxy.core.pipeline.ProxyChannelInitializer;
import dev.idemproxy.core.retry.LocalTaskBudgets;
import dev.idemproxy.core.retry.RetryRules;
import dev.idemproxy.core.retry.TaskBudget;
import dev.idemproxy.core.store.MeteredStores;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.metrics.ProxyMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.concurrent.ThreadLocalRandom;
import dev.idemproxy.core.pipeline.ServerState;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteTable;
import dev.idemproxy.core.upstream.UpstreamPools;
import dev.idemproxy.core.call.Dialects;
import dev.idemproxy.core.mcp.McpDialects;
import dev.idemproxy.core.route.McpPolicy;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's client-facing listener and everything behind it. Lifecycle: {@link #start()},
 * any number of {@link #apply(ProxyConfig)} (route table swaps), then {@link #stop(Duration)}.
 * This class is thread-safe.
 */
public final class ProxyServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ProxyServer.class);

    private final ProxyConfig config;
    private final Transport transport;
    private final ServerState state = new ServerState();
    private final UpstreamPools pools;
    private final CallServices services;
    private final ProxyMetrics metrics;
    private final boolean logKeyValues;
    /** The forward proxy, made at start when the config has {@code forwardProxy}; else null. */
    private dev.idemproxy.core.forward.ForwardProxy forward;
    private final ChannelGroup clients = new DefaultChannelGroup("idemproxy-clients", GlobalEventExecutor.INSTANCE);
    /** The caller's event loops (which it closes after {@link #stop}), or null: this server makes its own. */
    private final IoLoops sharedLoops;
    /** The loops served on: {@link #sharedLoops}, or this server's own, made in {@link #start} and stopped in {@link #stop}. */
    private IoLoops loops;
    private EventLoopGroup bossGroup;
    private Channel serverChannel;

    /** A proxy without an idempotency store: protected routes can retry but record nothing. */
    public ProxyServer(ProxyConfig config) {
        this(config, null, new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
    }

    /**
     * @param stores   the stores (owned by the caller, who closes them after {@link #stop}); may be null
     * @param registry where the engine's metrics go
     */
    public ProxyServer(ProxyConfig config, Stores stores, MeterRegistry registry) {
        this(config, stores, registry, null);
    }

    /**
     * @param stores   the stores (owned by the caller, who closes them after {@link #stop}); may be null
     * @param registry where the engine's metrics go
     * @param loops    the I/O event loops to serve on (owned by the caller, who closes them after
     *                 {@link #stop} and after the store); null: the server makes
     *                 {@code server.ioThreads} of its own and stops them in {@link #stop}
     */
    public ProxyServer(ProxyConfig config, Stores stores, MeterRegistry registry, IoLoops loops) {
        this(config, stores, registry, loops, true);
    }

    /**
     * @param logKeyValues whether call lines carry their fields as key-value pairs: true for a
     *                     layout that writes them (JSON), false for the text layout, which prints
     *                     the message alone
     */
    public ProxyServer(ProxyConfig config, Stores stores, MeterRegistry registry, IoLoops loops,
            boolean logKeyValues) {
        this.config = requireNonNull(config, "config");
        this.sharedLoops = loops;
        this.metrics = new ProxyMetrics(registry);
        this.logKeyValues = logKeyValues;
        Stores metered = stores == null ? null : MeteredStores.wrap(stores, metrics, Ticker.system());
        this.transport = loops == null ? Transport.select(config.server().transport()) : loops.transport();
        this.pools = new UpstreamPools(transport);
        Clock clock = Clock.systemUTC();
        // With a store, task retries are counted there, so every proxy sharing it spends one budget.
        TaskBudgets taskBudgets = metered == null ? TaskBudgets.local(new LocalTaskBudgets(config.tasks(), clock))
                : TaskBudgets.stored(new TaskBudget(config.tasks(), clock), metered.taskBudgets());
        this.services = new CallServices(pools, new RetryRules(ThreadLocalRandom.current(), clock), config.tasks(),
                taskBudgets, config.retryBudget(), metered, config.store().onUnavailable(),
                config.redactor(), ThreadLocalRandom.current(), Ticker.system(), clock, metrics, logKeyValues);
        this.services.dialects(Dialects.http().with(McpPolicy.class, new McpDialects(metrics)));
    }

    /**
     * Prepares the routes and binds {@code listen}.
     *
     * @throws IllegalArgumentException when a route cannot be prepared (say, an unreadable CA file)
     * @throws java.net.BindException   when the address is in use
     */
    public synchronized void start() throws Exception {
        apply(config);
        if (config.forwardProxy() != null) {
            // Only here, so a proxy without forwardProxy never loads its classes (BouncyCastle among them).
            forward = dev.idemproxy.core.forward.ForwardProxy.start(config.forwardProxy(), transport, pools::resolve, metrics,
                    logKeyValues, Clock.systemUTC(), Ticker.system(), config.store().embeddedPath());
        }
        bossGroup = transport.newGroup(1, "idemproxy-accept");
        loops = sharedLoops != null ? sharedLoops : IoLoops.start(config.server().transport(), config.server().effectiveIoThreads());
        ServerBootstrap b = new ServerBootstrap()
                .group(bossGroup, loops.group())
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ProxyChannelInitializer(config.server(), state, services, clients, forward));
        try {
            serverChannel = b.bind(config.listen().toSocketAddress()).sync().channel();
        } catch (Exception e) {
            closeForward();
            shutdownGroups();
            throw asBindException(e);
        }
        // The DLQ gauge follows the store, so admin deletes (or another replica's entries) show.
        bossGroup.next().scheduleAtFixedRate(() -> services.recorder().refreshDeadLetterCount(), 10, 10, TimeUnit.SECONDS);
        LOG.info("idemproxy listening on {} ({} transport, {} io threads, {} routes)", address(), transport,
                loops.threads(), state.routes().size());
    }

    /**
     * The epoll transport reports a failed bind as a native {@code IOException}
     * ({@code bind(..) failed with error(-98): Address already in use}), NIO as a
     * {@link BindException}; callers see a {@code BindException} with the OS reason either way.
     */
    private static Exception asBindException(Exception e) {
        String message = e.getMessage();
        if (e instanceof BindException || !(e instanceof IOException) || message == null
                || !message.startsWith("bind(")) {
            return e;
        }
        int reason = message.indexOf("): ");
        BindException bind = new BindException(reason >= 0 ? message.substring(reason + 3) : message);
        bind.initCause(e);
        return bind;
    }

    /** The bound address (useful with port 0). */
    public InetSocketAddress address() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /**
     * Swaps in the routes of {@code newConfig} atomically; in-flight calls keep their route.
     * Listener, server and store settings take effect only on restart.
     *
     * @throws IllegalArgumentException when a route cannot be prepared; the old table stays
     */
    public void apply(ProxyConfig newConfig) {
        pools.prepare(ReceiptClient.withReceiptRoutes(newConfig.routes()));
        state.routes(RouteTable.of(newConfig.routes()));
        // Zero-valued series for the new routes; a removed route keeps its series until restart.
        for (Route route : newConfig.routes()) {
            services.metrics().registerRoute(route.name(), RetryRules.retryReasons(route.retry(), route.notExecutedOn()));
            if (route.isMcp()) {
                services.metrics().registerMcpRoute(route.name(), dev.idemproxy.core.mcp.McpDialect.OUTCOMES);
            }
        }
    }

    /**
     * The per-process secret with which the admin API's DLQ replay asks to keep a call's original
     * id ({@code X-Idemproxy-Replay}); never logged, never accepted from another process.
     */
    public String replayToken() {
        return services.replays().token();
    }

    public RouteTable routes() {
        return state.routes();
    }

    /** Calls in flight right now. */
    public int inFlight() {
        return state.inFlight();
    }

    /**
     * Graceful stop: stops accepting, lets in-flight calls finish for up to {@code grace}
     * (each response then closes its connection), closes idle connections, then everything. The
     * drain is logged when it starts ({@code drain started: inFlight=N graceMs=N}) and when it ends
     * ({@code drain ended: finished=N cut=N ms=N}, at WARN when calls were cut): see {@link Drain}.
     *
     * @return true when every in-flight call finished within the grace period
     */
    public synchronized boolean stop(Duration grace) throws InterruptedException {
        if (serverChannel == null) {
            return true;
        }
        Ticker ticker = services.ticker();
        long start = ticker.nanos();
        state.startDraining();
        int atStart = state.inFlight();
        LOG.atInfo().addKeyValue("inFlight", atStart).addKeyValue("graceMs", grace.toMillis())
                .log(Drain.startLine(atStart, grace));
        serverChannel.close().syncUninterruptibly();
        closeIdleClients();
        boolean drained = state.awaitIdle(grace.toMillis());
        Drain drain = new Drain(atStart, state.startedWhileDraining(), drained ? 0 : state.inFlight(),
                (ticker.nanos() - start) / 1_000_000L);
        (drain.complete() ? LOG.atInfo() : LOG.atWarn()).addKeyValue("finished", drain.finished())
                .addKeyValue("cut", drain.cut()).addKeyValue("ms", drain.millis()).log(drain.endLine());
        clients.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        pools.close();
        closeForward();
        shutdownGroups();
        serverChannel = null;
        return drained;
    }

    private void closeForward() {
        if (forward != null) {
            forward.close();
        }
    }

    /** Closes client connections that are between requests; busy ones close after their response. */
    private void closeIdleClients() {
        for (Channel ch : clients) {
            ch.eventLoop().execute(() -> ch.pipeline().fireUserEventTriggered(ServerDrainEvent.INSTANCE));
        }
    }

    private void shutdownGroups() {
        if (loops != null && loops != sharedLoops) {
            loops.close();
        }
        if (bossGroup != null) {
            bossGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop(Duration.ZERO);
    }
}
