package dev.idemproxy.core;

import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

/**
 * The admin listener: where it listens and the Bearer token it requires (empty: none), and the
 * optional metrics listener, which serves {@code /metrics}, {@code /healthz} and {@code /readyz}
 * only and never asks for the token (for a scraper that should not hold it, as Envoy's admin
 * port and Istio's stats port are split). A non-loopback admin address without a token is
 * refused. This class is immutable.
 *
 * @param metricsListen where the metrics listener listens; null: no metrics listener
 */
public record AdminPolicy(HostPort listen, String token, HostPort metricsListen) {
    public static final AdminPolicy DEFAULT = new AdminPolicy(new HostPort("127.0.0.1", 9901), "");

    public AdminPolicy {
        requireNonNull(listen, "listen");
        token = token == null ? "" : token;
    }

    /** An admin listener without a metrics listener. */
    public AdminPolicy(HostPort listen, String token) {
        this(listen, token, null);
    }

    public boolean hasToken() {
        return !token.isEmpty();
    }

    public boolean hasMetricsListener() {
        return metricsListen != null;
    }

    /** Throws when the listener would be reachable from other hosts without a token. */
    public void requireSafe() {
        requireArgument(hasToken() || listen.isLoopback(),
                "admin.listen " + listen + " is not a loopback address (expected: a loopback address, or set admin.token)");
    }

    @Override
    public String toString() {
        return "AdminPolicy[listen=" + listen + ", token=" + (hasToken() ? dev.idemproxy.core.secret.Redactor.MASK : "")
                + (metricsListen == null ? "" : ", metricsListen=" + metricsListen) + "]";
    }
}
