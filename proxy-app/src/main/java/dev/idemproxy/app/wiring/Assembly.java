package dev.idemproxy.app.wiring;

import dev.idemproxy.core.pipeline.ServerPolicy;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.app.admin.AdminServer;
import dev.idemproxy.app.admin.CallRecordsEndpoints;
import dev.idemproxy.app.admin.ConsoleEndpoints;
import dev.idemproxy.app.admin.MinuteSamples;
import dev.idemproxy.app.admin.MetricsSetup;
import dev.idemproxy.app.admin.BuildVersion;
import dev.idemproxy.app.config.ConfigDescriber;
import dev.idemproxy.app.config.ConfigProblem;
import dev.idemproxy.app.config.InvalidConfigException;
import dev.idemproxy.app.config.YamlConfigLoader;
import dev.idemproxy.core.net.IoLoops;
import dev.idemproxy.core.ProxyConfig;
import dev.idemproxy.core.ProxyServer;
import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.retry.Backoff;
import dev.idemproxy.core.store.Stores;
import java.time.Clock;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: the only place that creates the proxy's components, starts them in
 * order and closes them in reverse. Reloads swap the route table of the running proxy.
 * This class is thread-safe.
 */
public final class Assembly implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Assembly.class);

    private final Path configFile;
    private final YamlConfigLoader loader;
    /**
     * What is in effect: the settings the process started with, and the routes of the last good
     * reload. A reload never puts a restart-only setting here, so {@code GET /config} shows the
     * value in use; the file's values that differ from those are in {@link #pendingRestart}.
     */
    private final AtomicReference<ProxyConfig> current;
    /** The restart-only keys whose value in the file differs from the one in effect, in the YAML's order. */
    private volatile List<String> pendingRestart = List.of();
    private final MetricsSetup metrics;
    /** The proxy's I/O event loops, shared with the Redis store's connections; closed after the store. */
    private final IoLoops loops;
    private final Stores stores;
    private final ProxyServer proxy;
    /**
     * The trace export ({@code telemetry}); null without it. Typed {@link AutoCloseable} and made
     * only under that condition, so a config without telemetry never loads an OpenTelemetry class.
     */
    private final AutoCloseable tracing;
    private final AdminServer admin;
    /** The console's per-minute readings of the counters ({@code GET /stats/minutes}). */
    private final MinuteSamples minutes;
    private final Object reloadLock = new Object();

    private Assembly(ProxyConfig config, Path configFile, YamlConfigLoader loader, IoLoops loops, Stores stores,
            boolean logKeyValues) {
        this.configFile = configFile;
        this.loader = loader;
        this.current = new AtomicReference<>(config);
        this.loops = loops;
        this.stores = stores;
        this.metrics = new MetricsSetup(BuildVersion.get());
        StoreFactory.bindMetrics(stores, metrics.registry());
        this.proxy = new ProxyServer(config, stores, metrics.registry(), loops, logKeyValues);
        this.tracing = config.telemetry() == null ? null : startTracing(config, proxy, metrics);
        this.minutes = new MinuteSamples(metrics.registry(), Clock.systemUTC());
        this.admin = new AdminServer(config.admin(), metrics.registry(), stores::isAvailable,
                () -> ConfigDescriber.effectiveConfig(current.get(), pendingRestart),
                CallRecordsEndpoints.routes(stores, proxy::address, CallRecordsEndpoints.DEFAULT_REPLAY_TIMEOUT,
                        proxy.replayToken(), config.redactor(), this::routeNamesHost).plus(ConsoleEndpoints.routes(minutes)));
    }

    /**
     * Builds and starts everything for {@code config}.
     *
     * @param configFile where reloads read from; null when running without a file
     * @throws StartupException with a one-line reason (address in use, unusable CA file, …)
     */
    public static Assembly start(ProxyConfig config, Path configFile, YamlConfigLoader loader) throws StartupException {
        return start(config, configFile, loader, true);
    }

    /**
     * As {@link #start(ProxyConfig, Path, YamlConfigLoader)}.
     *
     * @param logKeyValues whether call lines carry their fields as key-value pairs (for the JSON layout)
     */
    public static Assembly start(ProxyConfig config, Path configFile, YamlConfigLoader loader, boolean logKeyValues)
            throws StartupException {
        requireNonNull(config, "config");
        requireNonNull(loader, "loader");
        IoLoops loops;
        try {
            loops = IoLoops.start(config.server().transport(), config.server().effectiveIoThreads());
        } catch (IllegalStateException e) {
            throw new StartupException("server.transport: " + e.getMessage(), e);
        }
        Stores stores;
        try {
            stores = StoreFactory.open(config.store(), Clock.systemUTC(), Ticker.system(), Backoff.threadLocalRandom(), loops);
        } catch (StartupException | RuntimeException e) {
            loops.close();
            throw e;
        }
        Assembly a = new Assembly(config, configFile, loader, loops, stores, logKeyValues);
        try {
            a.proxy.start();
        } catch (BindException e) {
            a.closeStoreLoopsAndMetrics();
            throw new StartupException("cannot listen on " + config.listen() + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            a.closeStoreLoopsAndMetrics();
            throw new StartupException(e.getMessage(), e);
        } catch (Exception e) {
            a.closeStoreLoopsAndMetrics();
            throw new StartupException("cannot start the proxy on " + config.listen() + ": " + e, e);
        }
        try {
            a.admin.start();
        } catch (RuntimeException e) {
            a.stopProxyQuietly();
            a.closeStoreLoopsAndMetrics();
            throw new StartupException("cannot start the admin listener on " + config.admin().listen() + ": "
                    + e.getMessage(), e);
        }
        a.minutes.start(a.loops.group().next());
        LOG.info("admin listening on {}", a.admin.localAddress());
        a.admin.metricsAddress().ifPresent(m -> LOG.info("metrics listening on {} (/metrics, /healthz, /readyz; no token)", m));
        return a;
    }

    /** Starts the trace export of {@code config.telemetry()} and makes it watch {@code proxy}'s calls. */
    private static AutoCloseable startTracing(ProxyConfig config, ProxyServer proxy, MetricsSetup metrics) {
        dev.idemproxy.app.telemetry.Tracing t = dev.idemproxy.app.telemetry.Tracing.start(config.telemetry(), config.redactor(),
                metrics.registry(), BuildVersion.get());
        proxy.watchers(t.watchers());
        LOG.info("traces go to {} (sampleRatio {}{})", config.redactor().url(config.telemetry().traces().endpoint().toString()),
                config.telemetry().traces().sampleRatio(), config.telemetry().traces().passThrough() ? ", pass-through calls too" : "");
        return t;
    }

    /** Whether the live route called {@code name} matches on a {@code match.host} (false when there is none). */
    private boolean routeNamesHost(String name) {
        return proxy.routes().routes().stream().anyMatch(r -> r.name().equals(name) && r.match().host() != null);
    }

    public InetSocketAddress proxyAddress() {
        return proxy.address();
    }

    public InetSocketAddress adminAddress() {
        return admin.localAddress();
    }

    /** The metrics listener's address ({@code admin.metricsListen}); empty when none is configured. */
    public Optional<InetSocketAddress> metricsAddress() {
        return admin.metricsAddress();
    }

    public ProxyConfig config() {
        return current.get();
    }

    /** Protected and pass-through calls the proxy is running right now. */
    public int inFlightCalls() {
        return proxy.inFlight();
    }

    /** How many entries the dead-letter queue holds (the store's count; completes off the caller's thread). */
    public CompletionStage<Long> deadLetterCount() {
        return stores.deadLetters().deadLetterCount();
    }

    /**
     * Re-reads the config file and swaps the route table. An invalid file keeps the old config,
     * is logged line by line and counted in {@code idemproxy_config_reload_failures_total}.
     *
     * @return true when the new config is live
     */
    public boolean reload() {
        if (configFile == null) {
            LOG.info("reload requested, but the proxy runs without a config file");
            return false;
        }
        synchronized (reloadLock) {
            try {
                ProxyConfig next = loader.load(configFile);
                proxy.apply(next);
                ProxyConfig running = current.get();
                List<String> pending = restartOnlyChanges(running, next);
                if (!pending.isEmpty()) {
                    LOG.warn("a reload swaps the routes only: {} changed in the file and take effect after a restart",
                            String.join(", ", pending));
                }
                pendingRestart = pending;
                current.set(running.withRoutes(next.routes()));
                LOG.info("config reloaded from {}: {} routes", configFile, next.routes().size());
                return true;
            } catch (InvalidConfigException e) {
                metrics.configReloadFailures().increment();
                LOG.error("config reload rejected; keeping the running config. Problems:");
                for (ConfigProblem p : e.problems()) {
                    LOG.error("  {}", p);
                }
                return false;
            } catch (RuntimeException e) {
                metrics.configReloadFailures().increment();
                LOG.error("config reload rejected; keeping the running config: {}", e.getMessage());
                return false;
            }
        }
    }

    /**
     * Every top-level setting but {@code routes}, by its YAML key (docs/configuration.md's order, which is
     * {@link ProxyConfig}'s): a reload swaps the routes only, so a change to any of these waits for
     * a restart. {@code AssemblyTest} holds this table to the record's components, so a setting
     * added to {@link ProxyConfig} without a line here fails the build instead of being dropped
     * silently on reload.
     */
    static final List<Map.Entry<String, Function<ProxyConfig, Object>>> RESTART_ONLY = List.of(
            Map.entry("listen", ProxyConfig::listen),
            Map.entry("shutdown.grace", ProxyConfig::shutdownGrace),
            Map.entry("admin", ProxyConfig::admin),
            Map.entry("server", ProxyConfig::server),  // and limits, which ServerPolicy holds too
            Map.entry("store", ProxyConfig::store),
            Map.entry("tasks", ProxyConfig::tasks),
            Map.entry("retryBudget", ProxyConfig::retryBudget),
            Map.entry("secretHeaders", ProxyConfig::secretHeaders),
            Map.entry("secretQueryParams", ProxyConfig::secretQueryParams),
            Map.entry("forwardProxy", ProxyConfig::forwardProxy),
            Map.entry("telemetry", ProxyConfig::telemetry));

    /** The restart-only keys (in {@link #RESTART_ONLY}'s order) whose value in {@code file} is not the one {@code running} uses. */
    static List<String> restartOnlyChanges(ProxyConfig running, ProxyConfig file) {
        List<String> keys = new ArrayList<>();
        for (Map.Entry<String, Function<ProxyConfig, Object>> setting : RESTART_ONLY) {
            if (setting.getKey().equals("server")) {
                // One record holds both sections: name the one that changed.
                ServerPolicy was = running.server();
                ServerPolicy is = file.server();
                if (!is.withLimits(was.limits()).equals(was)) {
                    keys.add("server");
                }
                if (!is.limits().equals(was.limits())) {
                    keys.add("limits");
                }
            } else if (!Objects.equals(setting.getValue().apply(file), setting.getValue().apply(running))) {
                keys.add(setting.getKey());
            }
        }
        return List.copyOf(keys);
    }

    /**
     * Graceful stop: the proxy drains for up to {@code grace}, then the admin listener and
     * metrics close.
     *
     * @return true when every in-flight call finished in time
     */
    public boolean stop(Duration grace) {
        boolean drained;
        try {
            drained = proxy.stop(grace);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            drained = false;
        }
        admin.close();
        minutes.close();
        closeStoreLoopsAndMetrics();
        return drained;
    }

    /** The trace export first (the calls have ended: what is queued goes), the store (its Redis connections run on the loops), then the loops, then the metrics. */
    private void closeStoreLoopsAndMetrics() {
        try {
            closeTracing();
            stores.close();
        } finally {
            loops.close();
            metrics.close();
        }
    }

    private void closeTracing() {
        if (tracing != null) {
            try {
                tracing.close();
            } catch (Exception e) {
                LOG.warn("the trace export did not stop cleanly: {}", e.toString());
            }
        }
    }

    private void stopProxyQuietly() {
        try {
            proxy.stop(Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stop(Duration.ZERO);
    }
}
