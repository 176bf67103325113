package dev.idemproxy.core.metrics;

/**
 * Why the front refused a request or a connection: the bounded {@code reason} tag of
 * {@code idemproxy_front_rejections_total} (docs/metrics.md), and the {@code reason} of the
 * rejected request's call-log line.
 */
public enum FrontRejection {
    /** The request head did not arrive within {@code limits.headTimeout} (408, or a silent new connection closed). */
    HEAD_TIMEOUT("head_timeout"),
    /** The request body did not arrive within {@code limits.bodyTimeout} (408, or closed once answered). */
    BODY_TIMEOUT("body_timeout"),
    /** A connection over {@code limits.maxConnections}, closed as it was accepted. */
    MAX_CONNECTIONS("max_connections"),
    /** Undecodable or refused HTTP: a bad request line, header, Host, framing, target, version or coding. */
    MALFORMED("malformed"),
    /** A request line or header block over the limits (431), or a body over {@code maxRequestBody} (413). */
    TOO_LARGE("too_large");

    private final String spelling;

    FrontRejection(String spelling) {
        this.spelling = spelling;
    }

    public String spelling() {
        return spelling;
    }
}
