package dev.idemproxy.core.route;

import static java.util.Objects.requireNonNull;

import java.util.Locale;
import java.util.Set;

/**
 * What a route matches: each named criterion must hold; an unnamed one (null host, empty
 * prefix, empty methods) matches anything. This class is immutable.
 *
 * @param host       the request's host without port, compared case-insensitively; null = any
 * @param pathPrefix the path must start with this; "" = any
 * @param methods    upper-case method names; empty = any
 */
public record RouteMatch(String host, String pathPrefix, Set<String> methods) {
    public static final RouteMatch ANY = new RouteMatch(null, "", Set.of());

    public RouteMatch {
        host = host == null || host.isEmpty() ? null : host.toLowerCase(Locale.ROOT);
        pathPrefix = pathPrefix == null ? "" : pathPrefix;
        methods = Set.copyOf(requireNonNull(methods, "methods"));
    }

    /**
     * @param requestHost lower-case host without port, or null when the request named none
     */
    public boolean matches(String requestHost, String path, String method) {
        if (host != null && !host.equals(requestHost)) {
            return false;
        }
        if (!path.startsWith(pathPrefix)) {
            return false;
        }
        return methods.isEmpty() || methods.contains(method);
    }
}
