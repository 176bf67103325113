package dev.idemproxy.core.retry;

/**
 * The three classes every attempt's outcome falls in (docs/idempotency.md). They decide both retry and
 * replay: what is stored, what releases the key, what may be tried again.
 */
public enum OutcomeClass {
    /** The upstream did the work and said so (2xx, 3xx, most 4xx): stored and replayed. */
    EXECUTED,
    /**
     * Nothing was done (connect failure, 408, 409, 425, 429, a route's {@code notExecutedOn}
     * statuses, the proxy's own rejections): key released, retry safe.
     */
    NOT_EXECUTED,
    /** It may have executed (read timeout or reset after sending, 5xx): retried only where a duplicate is harmless. */
    UNKNOWN;

    /** The class of an upstream response status, before a route's {@code notExecutedOn} is applied. */
    public static OutcomeClass ofStatus(int status) {
        if (status >= 500) {
            return UNKNOWN;
        }
        switch (status) {
            case 408:
            case 409:
            case 425:
            case 429:
                return NOT_EXECUTED;
            default:
                return EXECUTED;
        }
    }
}
