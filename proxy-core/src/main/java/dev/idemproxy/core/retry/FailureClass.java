package dev.idemproxy.core.retry;

/**
 * Transport-level failures of one upstream attempt, with the contract's spellings (as used in
 * {@code retry.retryOn}) and the outcome class each implies. Status codes are classified by
 * {@link OutcomeClass#ofStatus(int)}.
 */
public enum FailureClass {
    /** Refused, connect timeout, DNS failure, TLS handshake failure: nothing was sent. */
    CONNECT_FAILURE("connect-failure", OutcomeClass.NOT_EXECUTED),
    /** The connection failed before any byte of the request was written. */
    RESET_BEFORE_REQUEST("reset-before-request", OutcomeClass.NOT_EXECUTED),
    /** The request was sent; no response head came within the attempt's timeout. */
    READ_TIMEOUT("read-timeout", OutcomeClass.UNKNOWN),
    /** The response started but the upstream went silent for longer than {@code timeouts.idle}. */
    IDLE_TIMEOUT("idle-timeout", OutcomeClass.UNKNOWN),
    /** The connection was reset or closed after the request was (partly) sent, before a complete response. */
    RESET("reset", OutcomeClass.UNKNOWN);

    private final String spelling;
    private final OutcomeClass outcome;

    FailureClass(String spelling, OutcomeClass outcome) {
        this.spelling = spelling;
        this.outcome = outcome;
    }

    public String spelling() {
        return spelling;
    }

    public OutcomeClass outcome() {
        return outcome;
    }
}
