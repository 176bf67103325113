package dev.idemproxy.core.retry;

/**
 * Why a protected call retried or stopped: the closed vocabulary of {@link RetryDecision#reason()},
 * each with the spelling the metrics ({@code idemproxy_retries_total{reason}}), the call's log
 * line, its receipt and its dead letter use. A retry after the backoff is spelled as its outcome
 * is in {@code retry.retryOn} ({@code 503}, {@code read-timeout}: {@link RetryDecision#spelling()}),
 * so it has no fixed spelling here.
 */
public enum RetryReason {
    /** Retry after the backoff; spelled as the outcome that caused it. */
    BACKOFF(null),
    /** Retry after the upstream's Retry-After; or stop because it was too long for maxRetryAfter or the deadline. */
    RETRY_AFTER("retry_after"),
    /** Stop: the upstream executed the call (2xx, 3xx, most 4xx). */
    EXECUTED("executed"),
    /** Stop: the task budget had no retry left. */
    BUDGET_TASK("budget_task"),
    /** Stop: the route's retry budget had no retry left. */
    BUDGET_ROUTE("budget_route"),
    /** Stop: the deadline expired, or the next attempt could not start before it. */
    DEADLINE("deadline"),
    /** Stop: maxAttempts attempts were made. */
    ATTEMPTS_EXHAUSTED("attempts_exhausted"),
    /** Stop: retryOn does not list this outcome. */
    NOT_RETRYABLE("not_retryable"),
    /** Stop: the outcome may have executed and a duplicate execution would not be harmless. */
    UNSAFE_TO_REPEAT("unsafe_to_repeat"),
    /** Stop: response bytes already went to the client; the call is committed. */
    RESPONSE_STARTED("response_started"),
    /**
     * Stop: the call took over the lapsed claim of an earlier call that may have executed, and
     * repeating it would not be harmless (no receipt endpoint to ask).
     */
    TAKEOVER_UNKNOWN("takeover_unknown"),
    /** Stop: the receipt endpoint says the call succeeded; answered from its result. */
    RECEIPT_SUCCESS("receipt_success"),
    /** Stop: the receipt endpoint says the call failed. */
    RECEIPT_FAILED("receipt_failed"),
    /** Stop: the receipt could not be read, or stayed PROCESSING until the deadline. */
    RECEIPT_UNRESOLVED("receipt_unresolved"),
    /** The answer was cut mid-body (the upstream closed or went silent): the call may have executed. */
    TRUNCATED_RESPONSE("truncated_response"),
    /** The client left before the call was forwarded: nothing ran. */
    CLIENT_GONE("client_gone");

    private final String spelling;

    RetryReason(String spelling) {
        this.spelling = spelling;
    }

    /** The spelling in metrics, logs, receipts and dead letters; null for {@link #BACKOFF}, spelled by its outcome. */
    public String spelling() {
        return spelling;
    }
}
