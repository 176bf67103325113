package dev.idemproxy.core.pipeline;

import static dev.idemproxy.core.util.Checks.positive;
import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * The front's defences on the client-facing listener (YAML key {@code limits}, docs/security.md).
 *
 * @param maxConnections    client connections open at once; one more is closed as it is accepted
 * @param headTimeout       a request's whole head must arrive within this, counted from its first
 *                          byte (on a new connection, from the accept)
 * @param bodyTimeout       a request's whole body must arrive within this, counted from the end of
 *                          its head: the budget of the whole body, not of a pause between reads
 * @param idleTimeout       a keep-alive connection with no request and no call in flight is closed
 *                          after this
 * @param underscoreHeaders what becomes of request header names with {@code _}
 * This class is immutable.
 */
public record LimitsPolicy(int maxConnections, Duration headTimeout, Duration bodyTimeout, Duration idleTimeout,
        UnderscoreHeaders underscoreHeaders) {
    public static final int MAX_CONNECTIONS_LIMIT = 1_000_000;

    public static final LimitsPolicy DEFAULT = new LimitsPolicy(4096, Duration.ofSeconds(10), Duration.ofSeconds(60),
            Duration.ofSeconds(120), UnderscoreHeaders.DROP);

    /** Request header names containing {@code _}: some upstreams read them as their {@code -} twin. */
    public enum UnderscoreHeaders {
        /** Removed before anything reads the request (nginx's and Envoy's default). */
        DROP("drop"),
        /** Kept and forwarded. */
        FORWARD("forward"),
        /** The request is answered 400 {@code bad-request} and the connection closed. */
        REJECT("reject");

        private final String spelling;

        UnderscoreHeaders(String spelling) {
            this.spelling = spelling;
        }

        public String spelling() {
            return spelling;
        }
    }

    public LimitsPolicy {
        requireArgument(maxConnections >= 1 && maxConnections <= MAX_CONNECTIONS_LIMIT,
                "maxConnections " + maxConnections + " (expected: 1.." + MAX_CONNECTIONS_LIMIT + ")");
        positive(headTimeout, "headTimeout");
        positive(bodyTimeout, "bodyTimeout");
        positive(idleTimeout, "idleTimeout");
        requireNonNull(underscoreHeaders, "underscoreHeaders");
    }

    public LimitsPolicy withIdleTimeout(Duration idle) {
        return new LimitsPolicy(maxConnections, headTimeout, bodyTimeout, idle, underscoreHeaders);
    }
}
