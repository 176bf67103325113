package dev.idemproxy.core.problem;

/**
 * The errors the proxy itself produces (CONTRACT §6), each with its HTTP status and the
 * {@code urn:idemproxy:problem:<name>} type. Answered as {@code application/problem+json}.
 * A name may serve more than one status ({@code bad-request}: 400, and 505 for the HTTP version).
 */
public enum Problem {
    NO_ROUTE("no-route", 404, "No route matches this request"),
    MISSING_IDEMPOTENCY_KEY("missing-idempotency-key", 400, "An idempotency key is required"),
    KEY_IN_FLIGHT("key-in-flight", 409, "A call with this idempotency key is in flight"),
    KEY_REUSED_WITH_DIFFERENT_PAYLOAD("key-reused-with-different-payload", 422,
            "The idempotency key was used with a different payload"),
    REQUEST_TOO_LARGE("request-too-large", 413, "The request body is too large"),
    HEADER_TOO_LARGE("header-too-large", 431, "The request header block is too large"),
    BAD_REQUEST("bad-request", 400, "Bad request"),
    /**
     * A request line naming an HTTP version other than 1.0 and 1.1 (RFC 9110 §15.6.6): malformed
     * input for this proxy, so the contract's {@code bad-request} type, with the status that says why.
     */
    HTTP_VERSION_NOT_SUPPORTED("bad-request", 505, "HTTP version not supported"),
    /**
     * A request body in a transfer coding other than chunked alone (RFC 9112 §6.1: 501 for a
     * coding the server does not understand); the contract's {@code bad-request} type.
     */
    TRANSFER_CODING_NOT_IMPLEMENTED("bad-request", 501, "Transfer coding not implemented"),
    /**
     * A client too slow: its request head or body did not arrive within {@code limits.headTimeout}
     * or {@code limits.bodyTimeout} (RFC 9110 §15.5.9); the contract's {@code bad-request} type.
     */
    REQUEST_TIMEOUT("bad-request", 408, "The request did not arrive in time"),
    METHOD_NOT_SUPPORTED("method-not-supported", 405, "Method not supported by the proxy"),
    /** A CONNECT to a host no route intercepts, with {@code forwardProxy.connect: refuse}. */
    CONNECT_REFUSED("connect-refused", 403, "The proxy does not tunnel to this host"),
    UPSTREAM_UNREACHABLE("upstream-unreachable", 502, "The upstream could not be reached"),
    UPSTREAM_RESET("upstream-reset", 502, "The upstream closed the connection or sent a response that does not parse"),
    UPSTREAM_FAILED("upstream-failed", 502, "The upstream's receipt says the call failed"),
    AMBIGUOUS_OUTCOME("ambiguous-outcome", 504, "The call's outcome is unknown; it may have executed"),
    DEADLINE_EXCEEDED("deadline-exceeded", 504, "The call's deadline expired"),
    STORE_UNAVAILABLE("store-unavailable", 503, "The idempotency store is unavailable"),
    RESULT_NOT_RETAINED("result-not-retained", 409, "The call completed but its response was too large to retain");

    private static final String URN_PREFIX = "urn:idemproxy:problem:";

    private final String spelling;
    private final int status;
    private final String title;

    Problem(String spelling, int status, String title) {
        this.spelling = spelling;
        this.status = status;
        this.title = title;
    }

    /** The contract's name, e.g. {@code no-route}. */
    public String spelling() {
        return spelling;
    }

    public int status() {
        return status;
    }

    public String title() {
        return title;
    }

    public String type() {
        return URN_PREFIX + spelling;
    }
}
