package dev.idemproxy.core.route;

import java.net.URI;

/**
 * Gives a call of a route without {@code upstream} the origin it asked for: the route's
 * {@code match.host} (the only host such a route matches), over https or http, on the port the
 * client named. The copy is remembered, so the calls of one connection (all to one target, as a
 * rule) share one bound route and everything keyed by it upstream. Routes with an upstream pass
 * through unchanged. Not thread-safe: one instance per client channel.
 */
public final class TargetBinder {
    private Route from;
    private boolean boundTls;
    private int boundPort;
    private Route bound;

    /**
     * @param tls  whether the call goes to the target over TLS
     * @param port the target's port, 1-65535
     */
    public Route bind(Route route, boolean tls, int port) {
        if (!route.forwardsToTarget()) {
            return route;
        }
        if (route != from || tls != boundTls || port != boundPort) {
            bound = route.toTarget(origin(tls, route.match().host(), port));
            from = route;
            boundTls = tls;
            boundPort = port;
        }
        return bound;
    }

    /** {@code https://host} or {@code http://host}, with {@code :port} unless it is the scheme's default. */
    static URI origin(boolean tls, String host, int port) {
        boolean defaultPort = port == (tls ? 443 : 80);
        return URI.create((tls ? "https://" : "http://") + host + (defaultPort ? "" : ":" + port));
    }

    /**
     * The port of an authority ({@code host:port}, {@code [v6]:port}), or -1 when it names none
     * (or none in 1-65535). Pure.
     */
    public static int portOf(String authority) {
        if (authority == null) {
            return -1;
        }
        int colon = authority.lastIndexOf(':');
        if (colon < 0 || authority.indexOf(']', colon) >= 0 || colon == authority.length() - 1) {
            return -1;
        }
        int port = 0;
        for (int i = colon + 1; i < authority.length(); i++) {
            char c = authority.charAt(i);
            if (c < '0' || c > '9' || port > 65535) {
                return -1;
            }
            port = port * 10 + (c - '0');
        }
        return port >= 1 && port <= 65535 ? port : -1;
    }
}
