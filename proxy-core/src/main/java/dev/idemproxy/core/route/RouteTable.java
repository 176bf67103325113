package dev.idemproxy.core.route;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;

/**
 * An immutable, ordered set of routes; the first match wins. Swapped whole on reload, so an
 * in-flight call keeps the {@link Route} it started with. This class is immutable.
 */
public final class RouteTable {
    private static final RouteTable EMPTY = new RouteTable(List.of());

    private final Route[] routes;

    private RouteTable(List<Route> routes) {
        this.routes = routes.toArray(new Route[0]);
    }

    public static RouteTable of(List<Route> routes) {
        requireNonNull(routes, "routes");
        return routes.isEmpty() ? EMPTY : new RouteTable(routes);
    }

    public static RouteTable empty() {
        return EMPTY;
    }

    /**
     * @param host   request host, lower-case, without port; null when the request named none
     * @param path   request path (no query)
     * @param method request method, upper-case
     */
    public Optional<Route> match(String host, String path, String method) {
        for (Route r : routes) {
            if (r.match().matches(host, path, method)) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }

    /**
     * The first route that names {@code match.host} and matches: how requests addressed to a
     * target are routed (absolute-form, and those inside an intercepted CONNECT; CONTRACT §3),
     * so a host-less catch-all never takes a request meant for another host.
     *
     * @param host the target's host, lower-case, without port
     */
    public Optional<Route> matchHostNamed(String host, String path, String method) {
        for (Route r : routes) {
            if (r.match().host() != null && r.match().matches(host, path, method)) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }

    /** Whether a route with {@code intercept} names {@code host} (lower-case, without port). */
    public boolean intercepts(String host) {
        for (Route r : routes) {
            if (r.intercept() && r.match().host().equals(host)) {
                return true;
            }
        }
        return false;
    }

    public List<Route> routes() {
        return List.of(routes);
    }

    public int size() {
        return routes.length;
    }
}
