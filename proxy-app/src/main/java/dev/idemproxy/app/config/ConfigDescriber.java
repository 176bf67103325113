package dev.idemproxy.app.config;

import dev.idemproxy.core.forward.ForwardProxyPolicy;
import dev.idemproxy.core.pipeline.LimitsPolicy;
import dev.idemproxy.core.ProxyConfig;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import dev.idemproxy.core.secret.Redactor;
import dev.idemproxy.core.store.StorePolicy;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders an effective {@link ProxyConfig} for people ({@code validate}'s route table) and for
 * the admin {@code /config} endpoint (a JSON-ready tree with secrets redacted). This class is stateless.
 */
public final class ConfigDescriber {
    /** What a set admin token (any secret) is shown as. */
    public static final String REDACTED = Redactor.MASK;

    private static final List<String> METHOD_ORDER = List.of("GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE");
    private static final Comparator<String> BY_METHOD = Comparator
            .comparingInt((String m) -> METHOD_ORDER.contains(m) ? METHOD_ORDER.indexOf(m) : METHOD_ORDER.size())
            .thenComparing(Comparator.naturalOrder());
    private static final SchemaKey UPSTREAM = ConfigSchema.ROUTE_ITEM.child("upstream");
    private static final List<String> HEADINGS = List.of("ROUTE", "MATCH", "UPSTREAM", "PROTECTS", "ATTEMPTS", "TAGS");

    private ConfigDescriber() {}

    /**
     * The route table, one aligned line per route in match order under a heading line, e.g.
     * {@code tickets  host=tickets.internal path=/api/tickets* methods=GET,POST  https://tickets.internal:8443
     * POST,PUT,PATCH,DELETE  4  idempotent}; {@code (no routes)} when there are none.
     */
    public static String routeTable(ProxyConfig config) {
        if (config.routes().isEmpty()) {
            return "(no routes)";
        }
        Redactor redactor = config.redactor();
        List<List<String>> rows = new ArrayList<>();
        rows.add(HEADINGS);
        for (Route r : config.routes()) {
            rows.add(List.of(r.name(), match(r.match()), upstream(r, redactor),
                    r.isMcp() ? "tools/call" : r.idempotency().enabled() ? join(r.idempotency().methods(), BY_METHOD) : "-",
                    Integer.toString(r.retry().maxAttempts()),
                    r.tags().isEmpty() ? "-" : join(r.tags(), Comparator.naturalOrder())));
        }
        return align(rows);
    }

    /**
     * One line per protected route, in match order: where its keys come from and what scopes
     * them (see {@link RouteDescriber#keySource}); empty when no route is protected.
     */
    public static List<String> keySources(ProxyConfig config) {
        List<String> lines = new ArrayList<>();
        for (Route r : config.routes()) {
            String line = RouteDescriber.keySource(r);
            if (line != null) {
                lines.add(line);
            }
        }
        return lines;
    }

    /**
     * The forward proxy, for {@code validate}: what a CONNECT to a host no route intercepts gets, and
     * one line per intercepting route with its host and the CA's files (absolute), whether they
     * exist yet; empty without {@code forwardProxy}.
     */
    public static List<String> interception(ProxyConfig config) {
        ForwardProxyPolicy f = config.forwardProxy();
        if (f == null) {
            return List.of();
        }
        List<String> lines = new ArrayList<>();
        String ca = f.caCert().toAbsolutePath() + " (key " + f.caKey().toAbsolutePath()
                + (Files.exists(f.caCert()) ? ")" : "; not there yet: made at start or by idemproxy ca cert)");
        boolean any = false;
        for (Route r : config.routes()) {
            if (r.intercept()) {
                any = true;
                lines.add("route " + r.name() + ": intercepts CONNECTs to " + r.match().host() + ", with certificates from the CA " + ca);
            }
        }
        String others = f.connect() == ForwardProxyPolicy.ConnectMode.REFUSE ? "refused (403 connect-refused)" : "tunnelled blind";
        lines.add("forwardProxy: CONNECTs to " + (any ? "other hosts " : "any host (no route intercepts) ") + others
                + (any ? "" : "; the CA " + ca));
        return lines;
    }

    /**
     * The upstream as its schema key lets it be shown, or for a route without one where its calls
     * go (and whether CONNECTs to its host are intercepted).
     */
    private static String upstream(Route r, Redactor redactor) {
        if (r.upstream() != null) {
            return SchemaRedaction.show(UPSTREAM, r.upstream().toString(), redactor).toString();
        }
        return r.intercept() ? "(target, intercepted)" : "(target)";
    }

    /** The match criteria as {@code host=… path=…* methods=…}, or {@code *} when the route matches anything. */
    static String match(RouteMatch m) {
        List<String> parts = new ArrayList<>();
        if (m.host() != null) {
            parts.add("host=" + m.host());
        }
        if (!m.pathPrefix().isEmpty()) {
            parts.add("path=" + m.pathPrefix() + "*");
        }
        if (!m.methods().isEmpty()) {
            parts.add("methods=" + join(m.methods(), BY_METHOD));
        }
        return parts.isEmpty() ? "*" : String.join(" ", parts);
    }

    /**
     * The effective config as nested maps, lists, strings, numbers and booleans, keyed as in the
     * YAML; durations and sizes spelled as in the YAML ({@code 30s}, {@code 4MiB}). Secrets are
     * shown as {@value Redactor#MASK} (docs/security.md) as {@link ConfigSchema} marks them, by
     * {@link SchemaRedaction}: the admin token, and the user-info and secret query parameters of
     * every URL (upstreams, receipt URL templates, the Redis URI).
     */
    public static Map<String, Object> effectiveConfig(ProxyConfig c) {
        return effectiveConfig(c, List.of());
    }

    /**
     * As {@link #effectiveConfig(ProxyConfig)}, and when {@code pendingRestart} is not empty a last
     * key {@code pendingRestart} listing the restart-only keys whose value in the file differs
     * from the one in effect (after a reload changed them).
     */
    public static Map<String, Object> effectiveConfig(ProxyConfig c, List<String> pendingRestart) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("listen", c.listen().toString());
        root.put("shutdown", map("grace", d(c.shutdownGrace())));
        Map<String, Object> admin = map("listen", c.admin().listen().toString(), "token", c.admin().token());
        if (c.admin().hasMetricsListener()) {
            admin.put("metricsListen", c.admin().metricsListen().toString());
        }
        root.put("admin", admin);
        root.put("server", map("ioThreads", c.server().ioThreads(), 
                "maxHeaderSize", SizeParser.format(c.server().maxHeaderSize()),
                "maxInitialLine", SizeParser.format(c.server().maxInitialLine()), "transport", c.server().transport().spelling()));
        LimitsPolicy l = c.server().limits();
        root.put("limits", map("maxConnections", l.maxConnections(), "headTimeout", d(l.headTimeout()),
                "bodyTimeout", d(l.bodyTimeout()), "idleTimeout", d(l.idleTimeout()),
                "underscoreHeaders", l.underscoreHeaders().spelling()));
        root.put("store", store(c.store()));
        root.put("tasks", map("header", c.tasks().header(),
                "budget", map("maxRetries", c.tasks().maxRetries(), "window", d(c.tasks().window()))));
        root.put("retryBudget", map("ratio", c.retryBudget().ratio(), "minPerSecond", c.retryBudget().minPerSecond(),
                "window", d(c.retryBudget().window())));
        root.put("secretHeaders", List.copyOf(c.secretHeaders()));
        root.put("secretQueryParams", List.copyOf(c.secretQueryParams()));
        if (c.forwardProxy() != null) {
            // The CA's file names only: its key is never read into what is shown.
            root.put("forwardProxy", map("connect", c.forwardProxy().connect().spelling(),
                    "ca", map("cert", c.forwardProxy().caCert().toString(), "key", c.forwardProxy().caKey().toString()),
                    "tunnelIdleTimeout", d(c.forwardProxy().tunnelIdleTimeout()),
                    "tunnelConnectTimeout", d(c.forwardProxy().tunnelConnectTimeout())));
        }
        root.put("routes", c.routes().stream().map(RouteDescriber::describe).toList());
        Map<String, Object> shown = SchemaRedaction.redact(root, ConfigSchema.ROOT, c.redactor());
        if (!pendingRestart.isEmpty()) {
            shown.put("pendingRestart", List.copyOf(pendingRestart));
        }
        return shown;
    }

    private static Map<String, Object> store(StorePolicy s) {
        return map("type", s.type().spelling(),
                "embedded", map("path", s.embeddedPath().toString(), "sync", s.embeddedSync().spelling()),
                "memory", map("maxEntries", s.memoryMaxEntries(), "maxBytes", SizeParser.format(s.memoryMaxBytes())),
                "redis", map("uri", s.redis().uri(), "mode", s.redis().mode(), "keyPrefix", s.redis().keyPrefix(),
                        "tls", map("caFile", s.redis().tlsCaFile() == null ? null : s.redis().tlsCaFile().toString())),
                "onUnavailable", s.onUnavailable().spelling(),
                "nearCache", map("enabled", s.nearCache().enabled(), "maxEntries", s.nearCache().maxEntries(),
                        "maxBytes", SizeParser.format(s.nearCache().maxBytes()), "ttl", d(s.nearCache().ttl())));
    }

    /** An insertion-ordered map from alternating keys and values. */
    static Map<String, Object> map(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }

    static String d(Duration duration) {
        return DurationParser.format(duration);
    }

    /** The elements' text, sorted, as a list: stable output for unordered sets. */
    static List<String> sorted(Collection<?> items, Comparator<String> order) {
        return items.stream().map(Object::toString).sorted(order).toList();
    }

    private static String join(Collection<String> items, Comparator<String> order) {
        return String.join(",", sorted(items, order));
    }

    static Comparator<String> methodOrder() {
        return BY_METHOD;
    }

    private static String align(List<List<String>> rows) {
        int[] widths = new int[HEADINGS.size()];
        for (List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                line.append(row.get(i)).append(" ".repeat(i == row.size() - 1 ? 0 : widths[i] - row.get(i).length() + 2));
            }
            sb.append(line.toString().stripTrailing()).append('\n');
        }
        return sb.toString().stripTrailing();
    }
}
