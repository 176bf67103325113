package dev.idemproxy.core.retry;

import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

/**
 * How one upstream attempt ended: a transport failure, or a response head with its status (and
 * its {@code Retry-After} value, if any). This class is immutable.
 *
 * @param failure    the failure, or null when a response head arrived
 * @param status     the response status, or 0 for a failure
 * @param retryAfter the response's {@code Retry-After} value as sent, or null
 * @param classed    the class the call's dialect or route gave this outcome (a route's
 *                   {@code notExecutedOn}), or null: the class its status or failure has
 */
public record AttemptOutcome(FailureClass failure, int status, String retryAfter, OutcomeClass classed) {
    public AttemptOutcome(FailureClass failure, int status, String retryAfter) {
        this(failure, status, retryAfter, null);
    }

    public AttemptOutcome {
        if (failure == null) {
            if (status < 100 || status > 599) {  // per attempt: the message is built only on failure
                throw new IllegalArgumentException("status " + status + " (expected: 100..599)");
            }
        } else {
            requireArgument(status == 0 && retryAfter == null, "a failure has no status (expected: status 0, no Retry-After)");
        }
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

    public boolean isFailure() {
        return failure != null;
    }

    /**
     * An answer on an upstream that guarantees the statuses in {@code notExecutedOn} (a route's
     * {@code notExecutedOn}) mean nothing ran: classed {@link OutcomeClass#NOT_EXECUTED} when listed.
     */
    public static AttemptOutcome answered(int status, String retryAfter, java.util.Set<Integer> notExecutedOn) {
        return new AttemptOutcome(null, status, retryAfter,
                !notExecutedOn.isEmpty() && notExecutedOn.contains(status) ? OutcomeClass.NOT_EXECUTED : null);
    }

    /** This outcome with a route's {@code notExecutedOn} applied (see {@link #answered(int, String, java.util.Set)}). */
    public AttemptOutcome on(java.util.Set<Integer> notExecutedOn) {
        return failure != null || classed != null ? this : answered(status, retryAfter, notExecutedOn);
    }

    /** The CONTRACT §5 class of this outcome: as classed, else by its status or failure. */
    public OutcomeClass outcomeClass() {
        if (classed != null) {
            return classed;
        }
        return failure != null ? failure.outcome() : OutcomeClass.ofStatus(status);
    }

    /**
     * The CONTRACT §5 class of this outcome on an upstream that guarantees a status in
     * {@code notExecutedOn} means nothing ran (a route's {@code notExecutedOn}): such a status is
     * {@link OutcomeClass#NOT_EXECUTED}, whatever its class would be otherwise.
     */
    public OutcomeClass outcomeClass(java.util.Set<Integer> notExecutedOn) {
        return on(notExecutedOn).outcomeClass();
    }

    /**
     * Whether {@code retry.retryOn} lists this outcome: a status by its code ("503"), a failure by
     * its spelling. {@code reset-before-request} (nothing was sent) is not a config spelling; it
     * is covered by {@code connect-failure} and by {@code reset}, as Envoy's {@code reset} covers it.
     */
    public boolean listedIn(java.util.Set<String> retryOn) {
        if (failure == null) {
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
     * a status as its code ({@code 503}), a failure as its spelling ({@code read-timeout},
     * {@code connect-failure}, {@code reset-before-request}, …). One spelling per value across the
     * metrics, the logs and the config (CONTRACT §8).
     */
    public String reason() {
        return failure == null ? Integer.toString(status) : failure.spelling();
    }

    @Override
    public String toString() {
        return failure != null ? failure.spelling() : retryAfter == null ? Integer.toString(status)
                : status + " (Retry-After: " + retryAfter + ")";
    }
}
