package dev.idemproxy.app.config;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;

/**
 * The YAML keys the loader knows, as a tree: the one source for unknown-key checks and for the
 * test that keeps {@code docs/configuration.md} complete. This class is immutable.
 */
final class ConfigSchema {

    /** A key; a section when it has children, a list of sections when {@code list} is set. */
    record Key(String name, boolean list, List<Key> children) {
        Key {
            requireNonNull(name, "name");
            children = List.copyOf(children);
        }

        boolean isSection() {
            return !children.isEmpty();
        }

        /** The child called {@code name}; throws when there is none (a loader bug, not a user error). */
        Key child(String childName) {
            for (Key k : children) {
                if (k.name.equals(childName)) {
                    return k;
                }
            }
            throw new IllegalStateException("schema of '" + name + "' has no key '" + childName + "'");
        }

        List<String> childNames() {
            return children.stream().map(Key::name).toList();
        }
    }

    static final Key ROUTE_ITEM = section("routes",
            leaf("name"),
            section("match", leaf("host"), leaf("pathPrefix"), leaf("methods")),
            leaf("upstream"),
            leaf("intercept"),
            leaf("tags"),
            section("timeouts", leaf("connect"), leaf("perTry"), leaf("idle"), leaf("total")),
            section("idempotency",
                    leaf("enabled"),
                    leaf("methods"),
                    section("key", leaf("header"), leaf("derive"), leaf("window"), leaf("required")),
                    leaf("scope"), leaf("fingerprint"), leaf("ttl"), leaf("lease"), leaf("onConcurrent"),
                    leaf("waitTimeout"), leaf("maxRequestBody"), leaf("maxResponseBody")),
            section("retry",
                    leaf("maxAttempts"),
                    leaf("retryOn"),
                    section("backoff", leaf("initial"), leaf("max"), leaf("multiplier"), leaf("jitter")),
                    leaf("maxRetryAfter")),
            section("ids", leaf("bizId")),
            section("receipt", leaf("url"), leaf("statusPointer"), leaf("resultPointer")),
            section("deadLetter", leaf("enabled"), leaf("keepHeaders")),
            section("tls", leaf("caFile"), leaf("serverName")),
            section("pool", leaf("maxIdle"), leaf("idleTimeout")),
            section("log", leaf("passThrough")),
            leaf("notExecutedOn"),
            section("mcp", leaf("enabled"), leaf("protect"), leaf("tools"), leaf("window")));

    static final Key ROOT = section("",
            leaf("listen"),
            section("shutdown", leaf("grace")),
            section("admin", leaf("listen"), leaf("token"), leaf("metricsListen")),
            section("server", leaf("ioThreads"), leaf("clientIdle"), leaf("maxHeaderSize"), leaf("maxInitialLine"),
                    leaf("transport")),
            section("limits", leaf("maxConnections"), leaf("headTimeout"), leaf("bodyTimeout"), leaf("idleTimeout"),
                    leaf("underscoreHeaders")),
            section("store",
                    leaf("type"),
                    section("embedded", leaf("path")),
                    section("memory", leaf("maxEntries"), leaf("maxBytes")),
                    section("redis", leaf("uri"), leaf("mode"), leaf("keyPrefix"), section("tls", leaf("caFile"))),
                    leaf("onUnavailable"),
                    section("nearCache", leaf("enabled"), leaf("maxEntries"), leaf("maxBytes"), leaf("ttl"))),
            section("tasks", leaf("header"), section("budget", leaf("maxRetries"), leaf("window"))),
            section("retryBudget", leaf("ratio"), leaf("minPerSecond"), leaf("window")),
            leaf("secretHeaders"),
            leaf("secretQueryParams"),
            section("forwardProxy", leaf("connect"), section("ca", leaf("cert"), leaf("key")), leaf("tunnelIdleTimeout"),
                    leaf("tunnelConnectTimeout")),
            new Key("routes", true, ROUTE_ITEM.children()));

    private ConfigSchema() {}

    /**
     * Every key the loader knows as a path, list items written {@code []}: {@code listen},
     * {@code shutdown}, {@code shutdown.grace}, …, {@code routes[].retry.backoff.jitter}.
     */
    static List<String> keyPaths() {
        List<String> out = new ArrayList<>();
        collect(ROOT, "", out);
        return List.copyOf(out);
    }

    private static void collect(Key key, String prefix, List<String> out) {
        for (Key child : key.children()) {
            String path = prefix.isEmpty() ? child.name() : prefix + "." + child.name();
            out.add(path);
            collect(child, child.list() ? path + "[]" : path, out);
        }
    }

    private static Key leaf(String name) {
        return new Key(name, false, List.of());
    }

    private static Key section(String name, Key... children) {
        return new Key(name, false, List.of(children));
    }
}
