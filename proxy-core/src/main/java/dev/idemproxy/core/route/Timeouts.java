package dev.idemproxy.core.route;

import static dev.idemproxy.core.util.Checks.positive;

import java.time.Duration;

/**
 * A route's timeouts. This class is immutable.
 *
 * @param connect TCP connect (and TLS handshake) to the upstream
 * @param perTry  one attempt, from sending the request to the response head
 * @param idle    the longest silence while a response (or a streamed request) is in transit
 * @param total   the whole call up to the response head, all attempts and waits included;
 *                it caps the caller's own deadline
 */
public record Timeouts(Duration connect, Duration perTry, Duration idle, Duration total) {
    public static final Timeouts DEFAULT = new Timeouts(
            Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofSeconds(120));

    public Timeouts {
        positive(connect, "connect");
        positive(perTry, "perTry");
        positive(idle, "idle");
        positive(total, "total");
    }
}
