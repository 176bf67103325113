package dev.idemproxy.app.admin;

import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * The admin API's route table: (method, path pattern) → {@link AdminHandlerFn}. Later features
 * add their endpoints here ({@code GET /receipts/{callId}}, {@code POST /dlq/{id}/replay}, …)
 * without touching {@link AdminServer}. When several patterns match a path the one with the most
 * literal segments wins, then the first registered. This class is immutable; its builder is not
 * thread-safe.
 */
public final class AdminRoutes {
    private static final AdminRoutes EMPTY = new AdminRoutes(List.of());

    private final List<Entry> entries;

    private AdminRoutes(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    public static AdminRoutes empty() {
        return EMPTY;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** This table with {@code other}'s routes after its own; a duplicate (method, pattern) is an error. */
    public AdminRoutes plus(AdminRoutes other) {
        return builder().addAll(this).addAll(other).build();
    }

    /** What the table says about a request for {@code method} on the decoded path segments. */
    Resolution resolve(String method, List<String> pathSegments) {
        Entry best = null;
        Map<String, String> bestParams = null;
        TreeSet<String> allowed = new TreeSet<>();
        for (Entry e : entries) {
            Map<String, String> params = e.pattern.match(pathSegments);
            if (params == null) {
                continue;
            }
            allowed.add(e.method);
            if (e.method.equals(method) && (best == null || e.pattern.literals() > best.pattern.literals())) {
                best = e;
                bestParams = params;
            }
        }
        if (best != null) {
            return new Resolution(best.handler, bestParams, List.of());
        }
        return new Resolution(null, Map.of(), List.copyOf(allowed));
    }

    /**
     * The outcome of {@link #resolve}: a handler with its path variables; or no handler and the
     * methods the path allows (empty: no such path, 404; else 405).
     */
    record Resolution(AdminHandlerFn handler, Map<String, String> pathParams, List<String> allowed) {
    }

    private record Entry(String method, PathPattern pattern, AdminHandlerFn handler) {
    }

    /** Collects routes; {@link #build()} may be called more than once. Not thread-safe. */
    public static final class Builder {
        private final List<Entry> entries = new ArrayList<>();

        private Builder() {
        }

        public Builder get(String pattern, AdminHandlerFn handler) {
            return add("GET", pattern, handler);
        }

        public Builder post(String pattern, AdminHandlerFn handler) {
            return add("POST", pattern, handler);
        }

        public Builder delete(String pattern, AdminHandlerFn handler) {
            return add("DELETE", pattern, handler);
        }

        /** Adds a route; {@code method} is case-insensitive, {@code pattern} like {@code /dlq/{id}}. */
        public Builder add(String method, String pattern, AdminHandlerFn handler) {
            requireNonNull(method, "method");
            requireNonNull(handler, "handler");
            String m = method.toUpperCase(Locale.ROOT);
            requireArgument(!m.isBlank() && m.chars().allMatch(c -> c >= 'A' && c <= 'Z'),
                    "admin route method '" + method + "' (expected: an HTTP method such as GET)");
            PathPattern p = new PathPattern(pattern);
            for (Entry e : entries) {
                requireArgument(!(e.method.equals(m) && e.pattern.equals(p)),
                        "admin route " + m + " " + pattern + " is already registered as " + e.pattern);
            }
            entries.add(new Entry(m, p, handler));
            return this;
        }

        public Builder addAll(AdminRoutes routes) {
            for (Entry e : routes.entries) {
                add(e.method, e.pattern.toString(), e.handler);
            }
            return this;
        }

        public AdminRoutes build() {
            return new AdminRoutes(entries);
        }
    }
}
