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

    public List<Route> routes() {
        return List.of(routes);
    }

    public int size() {
        return routes.length;
    }
}
