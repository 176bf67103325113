package dev.idemproxy.core.retry;

import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

/**
 * How one upstream attempt ended: a transport failure, or a response with its status (and its
 * {@code Retry-After} value, if any). A response is classed by its status, unless the call's
 * dialect read more of it and {@linkplain #judged judged} it (an MCP answer is a 200 whatever the
 * tool did, and its JSON-RPC body says whether it executed), or the route's {@code notExecutedOn}
 * lists its status ({@link #on}). This class is immutable.
 *
 * @param failure     the failure, or null when a response arrived
 * @param status      the response status, or 0 for a failure
 * @param retryAfter  the response's {@code Retry-After} value as sent, or null
 * @param judgedClass the class the dialect or the route's {@code notExecutedOn} gave the response;
 *                    null: the status's class
 * @param retryOnWord the {@code retry.retryOn} word that lists a judged response (its reason too);
 *                    null: the status code, or, for a judged class, no word at all (never listed)
 * @param note        what the dialect read, for details and logs ({@code jsonrpc -32603}); null when none
 */
public record AttemptOutcome(FailureClass failure, int status, String retryAfter, OutcomeClass judgedClass,
        String retryOnWord, String note) {
    public AttemptOutcome {
        if (failure == null) {
            if (status < 100 || status > 599) {  // per attempt: the message is built only on failure
                throw new IllegalArgumentException("status " + status + " (expected: 100..599)");
            }
        } else {
            requireArgument(status == 0 && retryAfter == null && judgedClass == null && retryOnWord == null,
                    "a failure has no status (expected: status 0, no Retry-After, no judged class)");
        }
    }

    public AttemptOutcome(FailureClass failure, int status, String retryAfter) {
        this(failure, status, retryAfter, null, null, null);
    }

    public static AttemptOutcome failed(FailureClass failure) {
        return new AttemptOutcome(requireNonNull(failure, "failure"), 0, null);
    }

    public static AttemptOutcome answered(int status) {
        return new AttemptOutcome(null, status, null);
    }

    public static AttemptOutcome answered(int status, String retryAfter) {
        return new AttemptOutcome(null, status, retryAfter);
    }

    /**
     * A response the call's dialect judged from more than its status.
     *
     * @param retryOnWord the {@code retryOn} word that lists it (e.g. {@code 500} for a JSON-RPC
     *                    internal error), or null when no word lists it (an executed answer)
     * @param note        what was read, for details; may be null
     */
    public static AttemptOutcome judged(int status, OutcomeClass outcomeClass, String retryOnWord, String note) {
        return new AttemptOutcome(null, status, null, requireNonNull(outcomeClass, "outcomeClass"), retryOnWord, note);
    }

    /**
     * An answer on an upstream that guarantees the statuses in {@code notExecutedOn} (a route's
     * {@code notExecutedOn}) mean nothing ran: judged {@link OutcomeClass#NOT_EXECUTED} when
     * listed, still listed in {@code retryOn} by its status code.
     */
    public static AttemptOutcome answered(int status, String retryAfter, java.util.Set<Integer> notExecutedOn) {
        if (notExecutedOn.isEmpty() || !notExecutedOn.contains(status)) {
            return new AttemptOutcome(null, status, retryAfter);
        }
        return new AttemptOutcome(null, status, retryAfter, OutcomeClass.NOT_EXECUTED, Integer.toString(status), null);
    }

    /** This outcome with a route's {@code notExecutedOn} applied (see {@link #answered(int, String, java.util.Set)}). */
    public AttemptOutcome on(java.util.Set<Integer> notExecutedOn) {
        return failure != null || judgedClass != null ? this : answered(status, retryAfter, notExecutedOn);
    }

    /**
     * The class of this outcome on an upstream that guarantees a status in {@code notExecutedOn}
     * means nothing ran: such a status is {@link OutcomeClass#NOT_EXECUTED}, whatever its class
     * would be otherwise.
     */
    public OutcomeClass outcomeClass(java.util.Set<Integer> notExecutedOn) {
        return on(notExecutedOn).outcomeClass();
    }

    public boolean isFailure() {
        return failure != null;
    }

    /** The class of this outcome: executed, not executed or unknown. */
    public OutcomeClass outcomeClass() {
        return failure != null ? failure.outcome() : judgedClass != null ? judgedClass : OutcomeClass.ofStatus(status);
    }

    /**
     * Whether {@code retry.retryOn} lists this outcome: a status by its code ("503"), a judged
     * response by its word (none: never), a failure by its spelling. {@code reset-before-request} (nothing was sent) is not a config spelling; it
     * is covered by {@code connect-failure} and by {@code reset}, as Envoy's {@code reset} covers it.
     */
    public boolean listedIn(java.util.Set<String> retryOn) {
        if (failure == null) {
            if (judgedClass != null) {
                return retryOnWord != null && retryOn.contains(retryOnWord);
            }
            return retryOn.contains(Integer.toString(status));
        }
        if (failure == FailureClass.RESET_BEFORE_REQUEST) {
            return retryOn.contains(failure.spelling())
                    || retryOn.contains(FailureClass.CONNECT_FAILURE.spelling())
                    || retryOn.contains(FailureClass.RESET.spelling());
        }
        return retryOn.contains(failure.spelling());
    }

    /**
     * The metrics/log reason of retrying this outcome, spelled as {@code retry.retryOn} spells it:
     * a status as its code ({@code 503}), a judged response as its word ({@code 500} for a
     * JSON-RPC internal error), a failure as its spelling ({@code read-timeout},
     * {@code connect-failure}, {@code reset-before-request}, …). One spelling per value across the
     * metrics, the logs and the config.
     */
    public String reason() {
        if (failure != null) {
            return failure.spelling();
        }
        return retryOnWord != null ? retryOnWord : Integer.toString(status);
    }

    @Override
    public String toString() {
        if (failure != null) {
            return failure.spelling();
        }
        if (note != null) {
            return status + " (" + note + ")";
        }
        return retryAfter == null ? Integer.toString(status) : status + " (Retry-After: " + retryAfter + ")";
    }
}
