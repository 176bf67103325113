package dev.idemproxy.core.route;

import static dev.idemproxy.core.util.Checks.positive;
import static dev.idemproxy.core.util.Checks.requireArgument;

import java.time.Duration;

/**
 * Upstream keep-alive pool of a route, per event loop. This class is immutable.
 *
 * @param maxIdle     idle connections kept per event loop
 * @param idleTimeout an idle pooled connection is closed after this long
 */
public record PoolPolicy(int maxIdle, Duration idleTimeout) {
    public static final PoolPolicy DEFAULT = new PoolPolicy(64, Duration.ofSeconds(60));

    public PoolPolicy {
        requireArgument(maxIdle >= 0 && maxIdle <= 10_000, "maxIdle " + maxIdle + " (expected: 0..10000)");
        positive(idleTimeout, "idleTimeout");
    }
}
