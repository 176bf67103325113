package dev.idemproxy.app.config;

import static dev.idemproxy.app.config.ConfigDescriber.d;
import static dev.idemproxy.app.config.ConfigDescriber.map;
import static dev.idemproxy.app.config.ConfigDescriber.sorted;

import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.idempotency.KeyPolicy;
import dev.idemproxy.core.route.McpPolicy;
import dev.idemproxy.core.retry.BackoffPolicy;
import dev.idemproxy.core.retry.RetryPolicy;
import dev.idemproxy.core.route.Route;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One route of {@link ConfigDescriber#effectiveConfig}, keyed as in the YAML, secrets still in it
 * ({@link SchemaRedaction} redacts the whole tree). This class is stateless.
 */
final class RouteDescriber {
    private RouteDescriber() {}

    static Map<String, Object> describe(Route r) {
        return map("name", r.name(),
                "match", map("host", r.match().host(), "pathPrefix", r.match().pathPrefix(),
                        "methods", sorted(r.match().methods(), ConfigDescriber.methodOrder())),
                "upstream", r.upstream() == null ? null : r.upstream().toString(),
                "intercept", r.intercept(),
                "tags", sorted(r.tags(), Comparator.naturalOrder()),
                "timeouts", map("connect", d(r.timeouts().connect()), "perTry", d(r.timeouts().perTry()),
                        "idle", d(r.timeouts().idle()), "total", d(r.timeouts().total())),
                "idempotency", idempotency(r.idempotency()),
                "retry", retry(r.retry()),
                "ids", map("bizId", strings(r.ids().bizId())),
                "receipt", r.receipt() == null ? null : map("url", r.receipt().url(),
                        "statusPointer", r.receipt().statusPointer(), "resultPointer", r.receipt().resultPointer()),
                "deadLetter", map("enabled", r.deadLetter().enabled(), "keepHeaders", List.copyOf(r.deadLetter().keepHeaders())),
                "tls", map("caFile", r.tls().caFile() == null ? null : r.tls().caFile().toString(),
                        "serverName", r.tls().serverName()),
                "pool", map("maxIdle", r.pool().maxIdle(), "idleTimeout", d(r.pool().idleTimeout())),
                "log", map("passThrough", r.log().passThrough()),
                "mcp", mcp(r.mcp()),
                "notExecutedOn", r.notExecutedOn().stream().sorted().toList());
    }

    private static Map<String, Object> idempotency(IdempotencyPolicy p) {
        KeyPolicy k = p.key();
        return map("enabled", p.enabled(),
                "methods", sorted(p.methods(), ConfigDescriber.methodOrder()),
                "key", map("header", k.header(), "derive", strings(k.derive()), "window", d(k.window()),
                        "required", k.required()),
                "scope", p.scope().credentials() ? map("credentialHeaders", p.scope().credentialHeaders())
                        : strings(p.scope().parts()),
                "fingerprint", strings(p.fingerprint()),
                "ttl", d(p.ttl()),
                "lease", d(p.lease()),
                "onConcurrent", p.onConcurrent().spelling(),
                "waitTimeout", d(p.waitTimeout()),
                "maxRequestBody", SizeParser.format(p.maxRequestBody()),
                "maxResponseBody", SizeParser.format(p.maxResponseBody()));
    }

    private static Map<String, Object> mcp(McpPolicy p) {
        Map<String, Object> tools = new TreeMap<>();
        p.tools().forEach((tool, rule) -> tools.put(tool, rule.spelling()));
        return map("enabled", p.enabled(), "protect", p.protect().spelling(), "tools", tools, "window", d(p.window()));
    }

    /**
     * Where a protected route's keys come from and what scopes them, for {@code validate}, e.g.
     * {@code route tickets: key from header Idempotency-Key, else derived from [method, path, body]
     * within 10m; scoped by credential headers [Authorization, …]}; null for a route that protects nothing.
     */
    static String keySource(Route r) {
        IdempotencyPolicy p = r.idempotency();
        if (r.isMcp()) {
            return mcpKeySource(r.name(), r.mcp(), p);
        }
        if (!p.enabled()) {
            return null;
        }
        KeyPolicy k = p.key();
        StringBuilder sb = new StringBuilder("route ").append(r.name()).append(": key from header ").append(k.header());
        if (!k.derive().isEmpty()) {
            sb.append(", else derived from ").append(k.derive()).append(" within ").append(d(k.window()));
        }
        if (k.required()) {
            sb.append(", else 400 missing-idempotency-key");
        } else if (k.derive().isEmpty()) {
            sb.append(", else generated per call (a client's retry without a key is a new call)");
        }
        return scope(sb, p).toString();
    }

    /**
     * An MCP route's protected tools and where their keys come from, e.g. {@code route tools (MCP):
     * protects tools/call of every tool but those the server's tools/list marks readOnlyHint, and
     * always [create_ticket], never [search_docs]; key from header Idempotency-Key, else derived from
     * the tool's name and arguments within 10m; scoped by …}.
     */
    private static String mcpKeySource(String name, McpPolicy m, IdempotencyPolicy p) {
        StringBuilder sb = new StringBuilder("route ").append(name).append(" (MCP): protects tools/call of ");
        switch (m.protect()) {
            case ALL -> sb.append("every tool");
            case NONE -> sb.append("no tool");
            default -> sb.append("every tool but those the server's tools/list marks readOnlyHint");
        }
        List<String> always = tools(m, McpPolicy.ToolRule.PROTECT);
        List<String> never = tools(m, McpPolicy.ToolRule.PASS);
        if (!always.isEmpty()) {
            sb.append(m.protect() == McpPolicy.Protect.NONE ? " but " : ", and always ").append(always);
        }
        if (!never.isEmpty()) {
            sb.append(", never ").append(never);
        }
        sb.append("; key from header ").append(p.key().header())
                .append(", else derived from the tool's name and arguments within ").append(d(m.window()));
        return scope(sb, p).toString();
    }

    private static List<String> tools(McpPolicy m, McpPolicy.ToolRule rule) {
        return m.tools().entrySet().stream().filter(e -> e.getValue() == rule).map(Map.Entry::getKey).sorted().toList();
    }

    private static StringBuilder scope(StringBuilder sb, IdempotencyPolicy p) {
        sb.append("; scoped by ");
        if (p.scope().credentials()) {
            sb.append("credential headers ").append(p.scope().credentialHeaders());
        } else if (p.scope().parts().isEmpty()) {
            sb.append("nothing (every caller shares its keys)");
        } else {
            sb.append(p.scope().parts());
        }
        return sb;
    }

    private static Map<String, Object> retry(RetryPolicy p) {
        BackoffPolicy b = p.backoff();
        return map("maxAttempts", p.maxAttempts(),
                "retryOn", sorted(p.retryOn(), RouteDescriber::retryOnOrder),
                "backoff", map("initial", d(b.initial()), "max", d(b.max()), "multiplier", b.multiplier(),
                        "jitter", b.jitter().toString()),
                "maxRetryAfter", d(p.maxRetryAfter()));
    }

    /** Failure classes in the contract's order first, then status codes ascending. */
    private static int retryOnOrder(String a, String b) {
        int ia = PolicyReader.FAILURE_CLASSES.indexOf(a);
        int ib = PolicyReader.FAILURE_CLASSES.indexOf(b);
        ia = ia < 0 ? PolicyReader.FAILURE_CLASSES.size() : ia;
        ib = ib < 0 ? PolicyReader.FAILURE_CLASSES.size() : ib;
        return ia != ib ? Integer.compare(ia, ib) : a.compareTo(b);
    }

    private static List<String> strings(List<?> parts) {
        return parts.stream().map(Object::toString).toList();
    }
}
