package dev.idemproxy.core.call;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.route.DialectPolicy;
import dev.idemproxy.core.route.Route;
import java.util.Map;

/**
 * Maps a route's dialect policy ({@link Route#dialect()}) to the dialect its calls speak: plain
 * HTTP ({@link HttpDialect}) always; others as registered (an MCP route's, by the engine's
 * wiring). A third dialect is a policy type and an entry here. This class is immutable.
 */
public final class Dialects {
    /** Makes (or finds) the dialect of a route whose policy is of one type. Thread-safe. */
    @FunctionalInterface
    public interface Factory {
        CallDialect dialectOf(Route route);
    }

    private final Map<Class<? extends DialectPolicy>, Factory> factories;

    private Dialects(Map<Class<? extends DialectPolicy>, Factory> factories) {
        this.factories = Map.copyOf(factories);
    }

    /** Plain HTTP only. */
    public static Dialects http() {
        return new Dialects(Map.of());
    }

    /** These dialects and {@code factory}'s, for routes whose policy is a {@code type}. */
    public Dialects with(Class<? extends DialectPolicy> type, Factory factory) {
        java.util.HashMap<Class<? extends DialectPolicy>, Factory> all = new java.util.HashMap<>(factories);
        all.put(requireNonNull(type, "type"), requireNonNull(factory, "factory"));
        return new Dialects(all);
    }

    /** The dialect of {@code route}'s calls; plain HTTP for a policy no entry names. */
    public CallDialect of(Route route) {
        DialectPolicy p = route.dialect();
        if (p == DialectPolicy.HTTP) {
            return HttpDialect.INSTANCE;
        }
        Factory f = factories.get(p.getClass());
        if (f == null) {
            throw new IllegalStateException("route " + route.name() + " speaks " + p.name()
                    + ", a dialect this engine has not registered (expected: one of http" + names() + ")");
        }
        return f.dialectOf(route);
    }

    private String names() {
        StringBuilder b = new StringBuilder();
        factories.keySet().forEach(t -> b.append(", ").append(t.getSimpleName()));
        return b.toString();
    }
}
