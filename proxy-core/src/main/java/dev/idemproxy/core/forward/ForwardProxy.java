package dev.idemproxy.core.forward;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.net.Transport;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.route.RouteTable;
import io.netty.channel.ChannelHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * The forward proxy (CONTRACT §11): the CA, the leaf certificates minted from it, and the CONNECT
 * handler each client channel gets. Made only when the config has {@code forwardProxy}, so nothing
 * of it (BouncyCastle included) is loaded otherwise. Leaf certificates are minted on a small pool
 * of its own, closed by {@link #close()}. This class is thread-safe.
 */
public final class ForwardProxy implements AutoCloseable {
    private final ForwardProxyPolicy policy;
    private final Transport transport;
    private final BiFunction<String, Integer, CompletableFuture<InetSocketAddress>> resolver;
    private final ExecutorService mints;
    private final LeafContexts leaves;
    private final ConnectLog log;

    private ForwardProxy(ForwardProxyPolicy policy, LocalCa ca, Transport transport,
            BiFunction<String, Integer, CompletableFuture<InetSocketAddress>> resolver, ProxyMetrics metrics,
            boolean logKeyValues, Clock clock, Ticker ticker, SecureRandom random) {
        this.policy = policy;
        this.transport = requireNonNull(transport, "transport");
        this.resolver = requireNonNull(resolver, "resolver");
        this.mints = mintPool();
        this.leaves = new LeafContexts(new LeafMinter(ca, clock, random), mints, ticker);
        this.log = new ConnectLog(metrics, logKeyValues);
        metrics.registerConnectResults(ConnectResult.SPELLINGS);
    }

    /**
     * Loads the CA from {@code policy}'s files, or generates it there when both are absent.
     *
     * @param resolver resolves a blind tunnel's target off the event loop
     * @param dataDir  the proxy's data directory, set to mode 0700 when the CA's key is in it; may be null
     * @throws IllegalArgumentException when the CA files cannot be used (the message says which and why)
     * @throws IOException              when a new CA cannot be written
     */
    public static ForwardProxy start(ForwardProxyPolicy policy, Transport transport,
            BiFunction<String, Integer, CompletableFuture<InetSocketAddress>> resolver, ProxyMetrics metrics,
            boolean logKeyValues, Clock clock, Ticker ticker, java.nio.file.Path dataDir) throws IOException {
        requireNonNull(policy, "policy");
        SecureRandom random = new SecureRandom();
        LocalCa ca = LocalCa.loadOrCreate(policy.caCert(), policy.caKey(), clock, random, dataDir);
        return new ForwardProxy(policy, ca, transport, resolver, metrics, logKeyValues, clock, ticker, random);
    }

    private static ExecutorService mintPool() {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(2, 2, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "idemproxy-mint-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** A new CONNECT handler for one client channel, deciding on the live {@code routes}. */
    public ChannelHandler newConnectHandler(Supplier<RouteTable> routes, HttpStack stack) {
        return new ConnectHandler(this, routes, stack);
    }

    public ForwardProxyPolicy policy() {
        return policy;
    }

    LeafContexts leaves() {
        return leaves;
    }

    ConnectLog log() {
        return log;
    }

    Transport transport() {
        return transport;
    }

    CompletableFuture<InetSocketAddress> resolve(String host, int port) {
        return resolver.apply(host, port);
    }

    @Override
    public void close() {
        mints.shutdownNow();
    }
}
