package dev.idemproxy.app.config;

import dev.idemproxy.core.AdminPolicy;
import dev.idemproxy.core.HostPort;
import dev.idemproxy.core.pipeline.LimitsPolicy;
import dev.idemproxy.core.ProxyConfig;
import dev.idemproxy.core.pipeline.ServerPolicy;
import dev.idemproxy.core.net.Transport;
import dev.idemproxy.core.pipeline.ServerPolicy;
import dev.idemproxy.core.net.Transport;
import dev.idemproxy.core.forward.ForwardProxyPolicy;
import dev.idemproxy.core.retry.RetryBudgetPolicy;
import dev.idemproxy.core.retry.TaskPolicy;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.store.StorePolicy;
import dev.idemproxy.core.store.memory.MemoryStore;
import dev.idemproxy.core.store.StorePolicy.NearCachePolicy;
import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import java.nio.file.Path;
import java.nio.file.InvalidPathException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Maps the top level of a config document onto {@link ProxyConfig}; routes go to {@link RouteReader}. */
final class ConfigReader {
    /** The largest near-cache: 64 GiB, far above any sensible heap share. */
    private static final long MAX_NEAR_CACHE_BYTES = 64L * 1024 * 1024 * 1024;
    private ConfigReader() {}

    /** The config, or null when a problem was found (each one recorded). */
    static ProxyConfig read(MapReader root) {
        HostPort listen = root.parsed("listen", ProxyConfig.DEFAULT_LISTEN, "host:port", HostPort::parse);
        MapReader shutdown = root.map("shutdown");
        var grace = shutdown.duration("grace", ProxyConfig.DEFAULT_GRACE, true);
        AdminPolicy admin = admin(root.map("admin"), listen);
        ServerPolicy server = server(root.map("server"), root.map("limits"));
        StorePolicy store = store(root.map("store"));
        TaskPolicy tasks = tasks(root.map("tasks"));
        RetryBudgetPolicy retryBudget = retryBudget(root.map("retryBudget"));
        List<String> secretHeaders = root.list("secretHeaders", List.of(), Reading::headerName);
        List<String> secretQueryParams = root.list("secretQueryParams", List.of(), Reading::queryParamName);
        root.reading().problems().secrets(dev.idemproxy.core.secret.Redactor.of(secretHeaders, secretQueryParams));
        ForwardProxyPolicy forwardProxy = ForwardReader.read(root, store.embeddedPath());
        List<Route> routes = routes(root, secretHeaders, root.has("forwardProxy"));
        if (root.reading().problems().isEmpty()) {
            return root.reading().problems().build(root.at("routes"), "", () -> new ProxyConfig(listen, grace, admin, server,
                    store, tasks, retryBudget, secretHeaders, secretQueryParams, routes, forwardProxy));
        }
        return null;
    }

    private static AdminPolicy admin(MapReader m, HostPort proxyListen) {
        AdminPolicy d = AdminPolicy.DEFAULT;
        HostPort listen = m.parsed("listen", d.listen(), "host:port", HostPort::parse);
        String token = m.string("token", d.token());
        HostPort metricsListen = m.parsed("metricsListen", null, "host:port", HostPort::parse);
        AdminPolicy admin = m.reading().problems().build(m.at("listen"), m.path(),
                () -> new AdminPolicy(listen, token, metricsListen));
        if (admin == null) {
            return d;
        }
        if (!admin.hasToken() && !listen.isLoopback()) {
            m.problem("listen", listen + " is not a loopback address (expected: a loopback address, or set admin.token)");
        }
        if (metricsListen != null && sharePort(metricsListen, listen)) {
            m.problem("metricsListen", metricsListen + " takes admin.listen's port (expected: a port of its own)");
        } else if (metricsListen != null && sharePort(metricsListen, proxyListen)) {
            m.problem("metricsListen", metricsListen + " takes listen's port (expected: a port of its own)");
        }
        return admin;
    }

    /** True when binding both would clash: the same fixed port on the same host, or on all interfaces. */
    private static boolean sharePort(HostPort a, HostPort b) {
        return a.port() != 0 && a.port() == b.port()
                && (a.host().equals(b.host()) || isWildcard(a.host()) || isWildcard(b.host()));
    }

    private static boolean isWildcard(String host) {
        return host.equals("0.0.0.0") || host.equals("::") || host.equals("0:0:0:0:0:0:0:0");
    }

    private static ServerPolicy server(MapReader m, MapReader limitsMap) {
        ServerPolicy d = ServerPolicy.DEFAULT;
        int ioThreads = (int) m.integer("ioThreads", d.ioThreads(), 0, 256);
        int maxHeaderSize = (int) m.size("maxHeaderSize", d.maxHeaderSize(), 1024, 1024 * 1024);
        int maxInitialLine = (int) m.size("maxInitialLine", d.maxInitialLine(), 256, 1024 * 1024);
        Transport.Choice transport = m.parsed("transport", d.transport(), "a transport",
                t -> Choices.of(Transport.Choice.values(), Transport.Choice::spelling, t));
        LimitsPolicy limits = limits(limitsMap, m);
        ServerPolicy s = m.reading().problems().build(m.at("ioThreads"), m.path(),
                () -> new ServerPolicy(ioThreads, maxHeaderSize, maxInitialLine, transport, limits));
        return s == null ? d : s;
    }

    /**
     * The {@code limits} section. {@code server.clientIdle}, the older name of
     * {@code limits.idleTimeout}, is still read; both at once are a problem.
     */
    private static LimitsPolicy limits(MapReader m, MapReader server) {
        LimitsPolicy d = LimitsPolicy.DEFAULT;
        int maxConnections = (int) m.integer("maxConnections", d.maxConnections(), 1, LimitsPolicy.MAX_CONNECTIONS_LIMIT);
        Duration headTimeout = m.duration("headTimeout", d.headTimeout(), false);
        Duration bodyTimeout = m.duration("bodyTimeout", d.bodyTimeout(), false);
        Duration idleTimeout = m.duration("idleTimeout", d.idleTimeout(), false);
        if (server.has("clientIdle")) {
            Duration clientIdle = server.duration("clientIdle", d.idleTimeout(), false);
            if (m.has("idleTimeout")) {
                server.problem("clientIdle", "given with limits.idleTimeout, its new name (expected: limits.idleTimeout alone)");
            } else {
                idleTimeout = clientIdle;
            }
        }
        LimitsPolicy.UnderscoreHeaders underscores = m.parsed("underscoreHeaders", d.underscoreHeaders(), "drop, forward or reject",
                t -> Choices.of(LimitsPolicy.UnderscoreHeaders.values(), LimitsPolicy.UnderscoreHeaders::spelling, t));
        Duration idle = idleTimeout;
        LimitsPolicy l = m.reading().problems().build(m.at("maxConnections"), m.path(),
                () -> new LimitsPolicy(maxConnections, headTimeout, bodyTimeout, idle, underscores));
        return l == null ? d : l;
    }

    private static StorePolicy store(MapReader m) {
        StorePolicy d = StorePolicy.DEFAULT;
        StorePolicy.Type type = m.parsed("type", d.type(), "a store type",
                t -> Choices.of(StorePolicy.Type.values(), StorePolicy.Type::spelling, t));
        Path base = m.reading().baseDir();
        Path path = m.map("embedded").parsed("path", base.resolve(d.embeddedPath()).normalize(), "a directory",
                t -> ConfigReader.path(base, t));
        StorePolicy.EmbeddedSync sync = m.map("embedded").parsed("sync", d.embeddedSync(), "none, interval or always",
                t -> Choices.of(StorePolicy.EmbeddedSync.values(), StorePolicy.EmbeddedSync::spelling, t));
        long maxEntries = m.map("memory").integer("maxEntries", d.memoryMaxEntries(), 1, Long.MAX_VALUE);
        long maxBytes = m.map("memory").size("maxBytes", d.memoryMaxBytes(), MemoryStore.MIN_BYTES, Long.MAX_VALUE);
        RedisPolicy redis = redis(m.map("redis"));
        StorePolicy.OnUnavailable onUnavailable = m.parsed("onUnavailable", d.onUnavailable(), "reject or passthrough",
                t -> Choices.of(StorePolicy.OnUnavailable.values(), StorePolicy.OnUnavailable::spelling, t));
        NearCachePolicy nearCache = nearCache(m.map("nearCache"), NearCachePolicy.defaultFor(type));
        StorePolicy s = m.reading().problems().build(m.at("type"), m.path(),
                () -> new StorePolicy(type, path, maxEntries, maxBytes, redis, onUnavailable, nearCache, sync));
        return s == null ? d : s;
    }

    private static NearCachePolicy nearCache(MapReader m, NearCachePolicy d) {
        boolean enabled = m.bool("enabled", d.enabled());
        long maxEntries = m.integer("maxEntries", d.maxEntries(), 1, Integer.MAX_VALUE);
        long maxBytes = m.size("maxBytes", d.maxBytes(), 1024, MAX_NEAR_CACHE_BYTES);
        Duration ttl = m.duration("ttl", d.ttl(), false);
        NearCachePolicy n = m.reading().problems().build(m.at("enabled"), m.path(),
                () -> new NearCachePolicy(enabled, maxEntries, maxBytes, ttl));
        return n == null ? d : n;
    }

    private static RedisPolicy redis(MapReader m) {
        RedisPolicy d = RedisPolicy.DEFAULT;
        String uri = m.parsed("uri", d.uri(), "a redis URI", ConfigReader::redisUri);
        String mode = m.parsed("mode", d.mode(), "a redis mode",
                t -> Choices.of(new String[] {"standalone", "sentinel", "cluster"}, s -> s, t));
        String keyPrefix = m.string("keyPrefix", d.keyPrefix());
        Path base = m.reading().baseDir();
        MapReader tls = m.map("tls");
        Path parsedCaFile = tls.parsed("caFile", null, "a file name", t -> RouteReader.readableFile(base, t));
        Path caFile = parsedCaFile != null && !uri.startsWith("rediss://") ? null : parsedCaFile;
        if (caFile != parsedCaFile) {
            tls.problem("caFile", "given with a " + uri.substring(0, uri.indexOf("://") + 3)
                    + " URI (expected: a rediss:// store.redis.uri)");
        }
        RedisPolicy r = m.reading().problems().build(m.at("uri"), m.path(), () -> new RedisPolicy(uri, mode, keyPrefix, caFile));
        return r == null ? d : r;
    }

    private static TaskPolicy tasks(MapReader m) {
        TaskPolicy d = TaskPolicy.DEFAULT;
        String header = m.parsed("header", d.header(), "a header name", Reading::headerName);
        MapReader budget = m.map("budget");
        int maxRetries = (int) budget.integer("maxRetries", d.maxRetries(), 0, Integer.MAX_VALUE);
        var window = budget.duration("window", d.window(), false);
        TaskPolicy t = m.reading().problems().build(m.at("budget"), m.path(), () -> new TaskPolicy(header, maxRetries, window));
        return t == null ? d : t;
    }

    private static RetryBudgetPolicy retryBudget(MapReader m) {
        RetryBudgetPolicy d = RetryBudgetPolicy.DEFAULT;
        double ratio = m.number("ratio", d.ratio(), 0.0, 1000.0);
        int minPerSecond = (int) m.integer("minPerSecond", d.minPerSecond(), 0, Integer.MAX_VALUE);
        var window = m.duration("window", d.window(), false);
        RetryBudgetPolicy r = m.reading().problems().build(m.at("ratio"), m.path(),
                () -> new RetryBudgetPolicy(ratio, minPerSecond, window));
        return r == null ? d : r;
    }

    /** Every route, in order; a route with problems is left out, a reused name reported. */
    private static List<Route> routes(MapReader root, List<String> secretHeaders, boolean forwardProxy) {
        List<Route> routes = new ArrayList<>();
        Map<String, String> firstUse = new HashMap<>();
        for (MapReader item : root.items("routes")) {
            String name = RouteReader.name(item);
            if (name != null && firstUse.containsKey(name)) {
                item.problem("name", "'" + name + "' is already used by " + firstUse.get(name) + " (expected: a unique name)");
            } else if (name != null) {
                firstUse.put(name, item.path());
            }
            Route r = RouteReader.read(item, name, secretHeaders, forwardProxy);
            if (r != null) {
                routes.add(r);
            }
        }
        return routes;
    }

    /** {@code text} resolved against the config file's folder, as every relative path in the file is. */
    private static Path path(Path base, String text) {
        try {
            return base.resolve(text).normalize();
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("'" + text + "' is not a valid path (expected: a directory)");
        }
    }

    private static String redisUri(String text) {
        if (!text.startsWith("redis://") && !text.startsWith("rediss://") && !text.startsWith("redis-sentinel://")) {
            String shown = new RedisPolicy(text, "standalone", "").redactedUri();
            throw new IllegalArgumentException("'" + shown + "' (expected: a redis://, rediss:// or redis-sentinel:// URI)");
        }
        String problem = RedisPolicy.addressProblem(text);
        if (problem != null) {
            String shown = new RedisPolicy(text, text.startsWith("redis-sentinel://") ? "sentinel" : "standalone", "").redactedUri();
            throw new IllegalArgumentException("'" + shown + "': " + problem + " (expected: host:port[,host:port], ports 1-65535)");
        }
        return text;
    }
}
