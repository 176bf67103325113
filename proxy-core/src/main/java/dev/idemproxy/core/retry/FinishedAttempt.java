package dev.idemproxy.core.retry;

import static java.util.Objects.requireNonNull;

/**
 * One attempt that just ended, as {@link RetryRules} needs to see it. This class is immutable.
 *
 * @param number           the attempt's number, 1 for the first
 * @param outcome          how it ended
 * @param responseStarted  true once any response byte has gone to the client: never retried then
 * @param receiptNotFound  true when the route's receipt check answered NOT_FOUND for this call,
 *                         which makes re-executing an unknown outcome harmless
 */
public record FinishedAttempt(int number, AttemptOutcome outcome, boolean responseStarted, boolean receiptNotFound) {
    public FinishedAttempt {
        if (number < 1) {  // per attempt: the message is built only on failure
            throw new IllegalArgumentException("number " + number + " (expected: >= 1)");
        }
        requireNonNull(outcome, "outcome");
    }

    /** An attempt whose response has not reached the client and with no receipt answer. */
    public static FinishedAttempt of(int number, AttemptOutcome outcome) {
        return new FinishedAttempt(number, outcome, false, false);
    }

    /** An attempt whose response is already on its way to the client: never retried. */
    public static FinishedAttempt started(int number, AttemptOutcome outcome) {
        return new FinishedAttempt(number, outcome, true, false);
    }

    /** An attempt whose unknown outcome the receipt endpoint says was not found: repeating it is harmless. */
    public static FinishedAttempt notFound(int number, AttemptOutcome outcome) {
        return new FinishedAttempt(number, outcome, false, true);
    }
}
