package dev.idemproxy.core.retry;

import static dev.idemproxy.core.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

/**
 * How one upstream attempt ended: a transport failure, or a response head with its status (and
 * its {@code Retry-After} value, if any). This class is immutable.
 *
 * @param failure    the failure, or null when a response head arrived
 * @param status     the response status, or 0 for a failure
 * @param retryAfter the response's {@code Retry-After} value as sent, or null
 */
public record AttemptOutcome(FailureClass failure, int status, String retryAfter) {
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

    /** The CONTRACT §5 class of this outcome on an upstream that guarantees nothing by its statuses. */
    public OutcomeClass outcomeClass() {
        return failure != null ? failure.outcome() : OutcomeClass.ofStatus(status);
    }

    /**
     * The CONTRACT §5 class of this outcome on an upstream that guarantees a status in
     * {@code notExecutedOn} means nothing ran (a route's {@code notExecutedOn}): such a status is
     * {@link OutcomeClass#NOT_EXECUTED}, whatever its class would be otherwise.
     */
    public OutcomeClass outcomeClass(java.util.Set<Integer> notExecutedOn) {
        if (failure == null && !notExecutedOn.isEmpty() && notExecutedOn.contains(status)) {
            return OutcomeClass.NOT_EXECUTED;
        }
        return outcomeClass();
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

    /** The metrics/log reason of retrying this outcome: {@code status_503}, {@code read_timeout}, … */
    public String reason() {
        return failure == null ? "status_" + status : failure.spelling().replace('-', '_');
    }

    @Override
    public String toString() {
        return failure != null ? failure.spelling() : retryAfter == null ? Integer.toString(status)
                : status + " (Retry-After: " + retryAfter + ")";
    }
}
