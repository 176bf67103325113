package dev.idemproxy.app.config;

import static dev.idemproxy.app.config.SchemaKey.Secret.URL;
import static dev.idemproxy.app.config.SchemaKey.Secret.VALUE;
import static dev.idemproxy.app.config.SchemaKey.Type.BOOLEAN;
import static dev.idemproxy.app.config.SchemaKey.Type.CHOICE;
import static dev.idemproxy.app.config.SchemaKey.Type.CHOICES;
import static dev.idemproxy.app.config.SchemaKey.Type.DIRECTORY;
import static dev.idemproxy.app.config.SchemaKey.Type.DURATION;
import static dev.idemproxy.app.config.SchemaKey.Type.FILE;
import static dev.idemproxy.app.config.SchemaKey.Type.HEADER_NAME;
import static dev.idemproxy.app.config.SchemaKey.Type.HEADER_NAMES;
import static dev.idemproxy.app.config.SchemaKey.Type.HEADER_VALUES;
import static dev.idemproxy.app.config.SchemaKey.Type.HOST_NAME;
import static dev.idemproxy.app.config.SchemaKey.Type.HOST_PORT;
import static dev.idemproxy.app.config.SchemaKey.Type.INTEGER;
import static dev.idemproxy.app.config.SchemaKey.Type.JSON_POINTER;
import static dev.idemproxy.app.config.SchemaKey.Type.METHODS;
import static dev.idemproxy.app.config.SchemaKey.Type.NUMBER;
import static dev.idemproxy.app.config.SchemaKey.Type.PATH;
import static dev.idemproxy.app.config.SchemaKey.Type.QUERY_PARAM_NAMES;
import static dev.idemproxy.app.config.SchemaKey.Type.REQUEST_PARTS;
import static dev.idemproxy.app.config.SchemaKey.Type.SIZE;
import static dev.idemproxy.app.config.SchemaKey.Type.STATUSES;
import static dev.idemproxy.app.config.SchemaKey.Type.STRING;
import static dev.idemproxy.app.config.SchemaKey.Type.TOOL_RULES;
import static dev.idemproxy.app.config.SchemaKey.Type.URI;
import static dev.idemproxy.app.config.SchemaKey.Type.URL_TEMPLATE;
import static dev.idemproxy.app.config.SchemaKey.choice;
import static dev.idemproxy.app.config.SchemaKey.leaf;
import static dev.idemproxy.app.config.SchemaKey.listOf;
import static dev.idemproxy.app.config.SchemaKey.secret;
import static dev.idemproxy.app.config.SchemaKey.section;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The YAML keys the loader knows, as a tree, each with its type, its default as
 * {@code docs/configuration.md} writes it and its secret marking: the one table behind the
 * unknown-key check ({@link MapReader}), what {@code /config} and {@code validate} show of secrets
 * ({@link SchemaRedaction}), and the tests that hold the docs and the readers' defaults and
 * choices to it. A literal default here is the value the reader's core record gives
 * (ConfigSchemaTest loads a minimal config and compares). This class is immutable.
 */
final class ConfigSchema {
    private static final String CREDENTIALS = "every credential header the request carries: `Authorization`, "
            + "`Proxy-Authorization`, `Cookie`, `X-Api-Key`, `Api-Key` and the `secretHeaders`";

    static final SchemaKey ROUTE_ITEM = section("routes",
            leaf("name", STRING, "required"),
            section("match", "matches everything",
                    leaf("host", HOST_NAME, "any host"),
                    leaf("pathPrefix", PATH, "any path"),
                    leaf("methods", METHODS, "any method")),
            secret("upstream", URI, "the host the client asked for (only with `match.host`)", URL),
            leaf("intercept", BOOLEAN, "`false`"),
            choice("tags", CHOICES, "`[]`", "idempotent"),
            section("timeouts",
                    leaf("connect", DURATION, "`5s`"),
                    leaf("perTry", DURATION, "`30s`"),
                    leaf("idle", DURATION, "`60s`"),
                    leaf("total", DURATION, "`120s`")),
            section("idempotency",
                    leaf("enabled", BOOLEAN, "`false`"),
                    leaf("methods", METHODS, "`[POST, PUT, PATCH, DELETE]`"),
                    section("key",
                            leaf("header", HEADER_NAME, "`Idempotency-Key`"),
                            leaf("derive", REQUEST_PARTS, "`[method, path, body]`"),
                            leaf("window", DURATION, "`10m`"),
                            leaf("required", BOOLEAN, "`false`")),
                    leaf("scope", REQUEST_PARTS, CREDENTIALS),
                    leaf("fingerprint", REQUEST_PARTS, "`[body]` for client keys, the `derive` parts for derived keys"),
                    leaf("ttl", DURATION, "`24h`"),
                    leaf("lease", DURATION, "`30s`"),
                    choice("onConcurrent", CHOICE, "`wait`", "wait", "reject"),
                    leaf("waitTimeout", DURATION, "`30s`"),
                    leaf("maxRequestBody", SIZE, "`1MiB`"),
                    leaf("maxResponseBody", SIZE, "`4MiB`")),
            section("retry",
                    leaf("maxAttempts", INTEGER, "`1` (no retry)"),
                    choice("retryOn", CHOICES, "`[connect-failure, read-timeout, reset, 429, 502, 503, 504]`",
                            "connect-failure", "read-timeout", "idle-timeout", "reset"),
                    section("backoff",
                            leaf("initial", DURATION, "`200ms`"),
                            leaf("max", DURATION, "`10s`"),
                            leaf("multiplier", NUMBER, "`2.0`"),
                            choice("jitter", CHOICE, "`full`", "full", "equal", "none")),
                    leaf("maxRetryAfter", DURATION, "`60s`")),
            section("ids", leaf("bizId", REQUEST_PARTS, "`[header:X-Biz-Id]`")),
            section("receipt",
                    secret("url", URL_TEMPLATE, "required when `receipt` is given", URL),
                    leaf("statusPointer", JSON_POINTER, "`/status`"),
                    leaf("resultPointer", JSON_POINTER, "`/result`")),
            section("deadLetter", leaf("enabled", BOOLEAN, "`true`"), leaf("keepHeaders", HEADER_NAMES, "`[]`")),
            section("tls", leaf("caFile", FILE, "the JVM's trust store"), leaf("serverName", HOST_NAME, "the upstream's host")),
            section("pool", leaf("maxIdle", INTEGER, "`64`"), leaf("idleTimeout", DURATION, "`60s`")),
            section("log", leaf("passThrough", BOOLEAN, "`true`")),
            leaf("notExecutedOn", STATUSES, "`[]`"),
            section("mcp",
                    leaf("enabled", BOOLEAN, "`false`"),
                    choice("protect", CHOICE, "`unlessReadOnly`", "unlessReadOnly", "all", "none"),
                    choice("tools", TOOL_RULES, "`{}`", "pass", "protect"),
                    leaf("window", DURATION, "`10m`")));

    static final SchemaKey ROOT = section("",
            leaf("listen", HOST_PORT, "`127.0.0.1:8080`"),
            section("shutdown", leaf("grace", DURATION, "`20s`")),
            section("admin",
                    leaf("listen", HOST_PORT, "`127.0.0.1:9901`"),
                    secret("token", STRING, "none", VALUE),
                    leaf("metricsListen", HOST_PORT, "none (no metrics listener)")),
            section("server",
                    leaf("ioThreads", INTEGER, "`0`"),
                    leaf("clientIdle", DURATION, ""),
                    leaf("maxHeaderSize", SIZE, "`16KiB`"),
                    leaf("maxInitialLine", SIZE, "`8KiB`"),
                    choice("transport", CHOICE, "`auto`", "auto", "io_uring", "epoll", "nio")),
            section("limits",
                    leaf("maxConnections", INTEGER, "`4096`"),
                    leaf("headTimeout", DURATION, "`10s`"),
                    leaf("bodyTimeout", DURATION, "`60s`"),
                    leaf("idleTimeout", DURATION, "`120s`"),
                    choice("underscoreHeaders", CHOICE, "`drop`", "drop", "forward", "reject")),
            section("store",
                    choice("type", CHOICE, "`embedded`", "embedded", "memory", "redis"),
                    section("embedded", leaf("path", DIRECTORY, "`./idemproxy-data`"),
                            choice("sync", CHOICE, "`interval`", "none", "interval", "always")),
                    section("memory",
                            leaf("maxEntries", INTEGER, "`1000000`"),
                            leaf("maxBytes", SIZE, "a quarter of the JVM's maximum heap (`-Xmx`), in whole MiB")),
                    section("redis",
                            secret("uri", URI, "`redis://127.0.0.1:6379`", URL),
                            choice("mode", CHOICE, "`standalone`", "standalone", "sentinel", "cluster"),
                            leaf("keyPrefix", STRING, "`idemproxy:`"),
                            section("tls", leaf("caFile", FILE, "the JVM's trust store"))),
                    choice("onUnavailable", CHOICE, "`reject`", "reject", "passthrough"),
                    section("nearCache",
                            leaf("enabled", BOOLEAN, "`true` with `embedded`; `false` with `redis` and `memory`"),
                            leaf("maxEntries", INTEGER, "`10000`"),
                            leaf("maxBytes", SIZE, "`64MiB`"),
                            leaf("ttl", DURATION, "`30s`"))),
            section("tasks",
                    leaf("header", HEADER_NAME, "`X-Task-Id`"),
                    section("budget", leaf("maxRetries", INTEGER, "`20`"), leaf("window", DURATION, "`1h`"))),
            section("retryBudget",
                    leaf("ratio", NUMBER, "`0.2`"),
                    leaf("minPerSecond", INTEGER, "`10`"),
                    leaf("window", DURATION, "`10s`")),
            leaf("secretHeaders", HEADER_NAMES, "`[]`"),
            leaf("secretQueryParams", QUERY_PARAM_NAMES, "`[]`"),
            section("forwardProxy",
                    choice("connect", CHOICE, "`tunnel`", "tunnel", "refuse"),
                    section("ca",
                            leaf("cert", FILE, "`ca.crt` in `store.embedded.path`"),
                            leaf("key", FILE, "`ca.key` in `store.embedded.path`")),
                    leaf("tunnelIdleTimeout", DURATION, "`5m`"),
                    leaf("tunnelConnectTimeout", DURATION, "`10s`")),
            section("telemetry",
                    section("traces",
                            secret("endpoint", URI, "required when `telemetry` is given", URL),
                            leaf("sampleRatio", NUMBER, "`1.0`"),
                            secret("headers", HEADER_VALUES, "`{}`", VALUE),
                            leaf("passThrough", BOOLEAN, "`false`"))),
            listOf("routes", ROUTE_ITEM));

    private ConfigSchema() {}

    /**
     * Every key the loader knows as a path, list items written {@code []}: {@code listen},
     * {@code shutdown}, {@code shutdown.grace}, …, {@code routes[].retry.backoff.jitter}.
     */
    static List<String> keyPaths() {
        return List.copyOf(keys().keySet());
    }

    /** Every key by its path (as {@link #keyPaths()}), sections included, in schema order. */
    static Map<String, SchemaKey> keys() {
        Map<String, SchemaKey> out = new LinkedHashMap<>();
        collect(ROOT, "", out);
        return out;
    }

    private static void collect(SchemaKey key, String prefix, Map<String, SchemaKey> out) {
        for (SchemaKey child : key.children()) {
            String path = prefix.isEmpty() ? child.name() : prefix + "." + child.name();
            out.put(path, child);
            collect(child, child.list() ? path + "[]" : path, out);
        }
    }
}
