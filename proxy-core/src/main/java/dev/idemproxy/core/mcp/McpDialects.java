package dev.idemproxy.core.mcp;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.call.CallDialect;
import dev.idemproxy.core.call.Dialects;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.route.Route;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The MCP dialect's entry in {@link Dialects}: each MCP route's own {@link McpDialect}, one per
 * route name, kept across reloads with what it learnt (its tool catalogue, its protected calls in
 * flight). This class is thread-safe.
 */
public final class McpDialects implements Dialects.Factory {
    private final ProxyMetrics metrics;
    private final ConcurrentHashMap<String, McpDialect> byRoute = new ConcurrentHashMap<>();

    public McpDialects(ProxyMetrics metrics) {
        this.metrics = requireNonNull(metrics, "metrics");
    }

    @Override
    public CallDialect dialectOf(Route route) {
        McpDialect d = byRoute.get(route.name());
        return d != null ? d : byRoute.computeIfAbsent(route.name(), n -> new McpDialect(n, metrics));
    }
}
