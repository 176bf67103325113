package dev.idemproxy.core.metrics;

/** The bounded {@code outcome} tag of {@code idemproxy_requests_total} and the call log. */
public enum CallOutcome {
    /** A pass-through call, streamed to the upstream and back. */
    FORWARDED("forwarded"),
    /** A protected call whose upstream answer was stored (or passed on) as executed. */
    EXECUTED("executed"),
    /** A protected call that ended without executing; its key was released. */
    NOT_EXECUTED("not_executed"),
    /** A duplicate answered from the store (coalesced waiters included). */
    REPLAYED("replayed"),
    /** A call that ended unsuccessfully: retries, budget or deadline exhausted, ambiguous outcome (DLQ). */
    FAILED("failed"),
    /** Answered by the proxy before any upstream hop: 400, 404, 409, 413, 422, 431, 503. */
    REJECTED("rejected");

    private final String spelling;

    CallOutcome(String spelling) {
        this.spelling = spelling;
    }

    public String spelling() {
        return spelling;
    }
}
