package dev.idemproxy.core.forward;

import dev.idemproxy.core.forward.ForwardProxyPolicy.ConnectMode;
import dev.idemproxy.core.route.RouteTable;
import java.util.List;

/**
 * What becomes of a CONNECT (CONTRACT §11), with the spelling of its
 * {@code idemproxy_connect_total{result}} series. The decision is pure.
 */
public enum ConnectResult {
    /** A route with {@code intercept: true} names the host: TLS is terminated and the routes apply inside. */
    INTERCEPTED("intercepted"),
    /** No route intercepts it and {@code connect: tunnel}: bytes pass untouched both ways. */
    TUNNELLED("tunnelled"),
    /** No route intercepts it and {@code connect: refuse}: 403 {@code connect-refused}. */
    REFUSED("refused");

    /** Every spelling, for registering the series at zero. */
    public static final List<String> SPELLINGS = List.of(INTERCEPTED.spelling, TUNNELLED.spelling, REFUSED.spelling);

    private final String spelling;

    ConnectResult(String spelling) {
        this.spelling = spelling;
    }

    public String spelling() {
        return spelling;
    }

    /** Intercepted when a route of {@code routes} intercepts the target's host; else as {@code mode} says. */
    public static ConnectResult decide(RouteTable routes, ConnectTarget target, ConnectMode mode) {
        if (routes.intercepts(target.host())) {
            return INTERCEPTED;
        }
        return mode == ConnectMode.TUNNEL ? TUNNELLED : REFUSED;
    }
}
