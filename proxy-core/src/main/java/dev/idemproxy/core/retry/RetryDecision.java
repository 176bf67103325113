package dev.idemproxy.core.retry;

import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.problem.Problem;
import java.time.Duration;
import java.util.Optional;

/**
 * What to do after an attempt: {@link Action#RETRY} after {@code delay}, or {@link Action#STOP}
 * and finish the call. A STOP says what becomes of the idempotency record and the caller's answer:
 * <ul>
 *   <li>{@code store}: complete the record with this answer and replay it to duplicates;</li>
 *   <li>{@code releaseKey}: release the claim so the next duplicate executes afresh;</li>
 *   <li>{@code deadLetter}: the call ended unsuccessfully; write a DLQ entry and a FAILED receipt;</li>
 *   <li>{@code problem}: answer this problem instead of the upstream's response (empty: answer
 *       the upstream's response as it is).</li>
 * </ul>
 * A RETRY keeps the key claimed through the wait and charges one task retry (the route budget's
 * token was taken while deciding). {@code reason} is one of a bounded set (the constants below,
 * plus a retry's {@link AttemptOutcome#reason()}: a status code or a failure, as {@code retryOn}
 * spells them), fit for a metric tag.
 * This class is immutable.
 */
public record RetryDecision(
        Action action,
        Duration delay,
        String reason,
        OutcomeClass outcome,
        boolean store,
        boolean releaseKey,
        boolean deadLetter,
        Problem problem) {

    public enum Action { RETRY, STOP }

    /** Stop: the upstream executed the call (2xx, 3xx, most 4xx). */
    public static final String EXECUTED = "executed";
    /** Retry after the upstream's Retry-After; or stop because it was too long for maxRetryAfter or the deadline. */
    public static final String RETRY_AFTER = "retry_after";
    /** Stop: the task budget had no retry left. */
    public static final String BUDGET_TASK = "budget_task";
    /** Stop: the route's retry budget had no retry left. */
    public static final String BUDGET_ROUTE = "budget_route";
    /** Stop: the deadline expired, or the next attempt could not start before it. */
    public static final String DEADLINE = "deadline";
    /** Stop: maxAttempts attempts were made. */
    public static final String ATTEMPTS_EXHAUSTED = "attempts_exhausted";
    /** Stop: retryOn does not list this outcome. */
    public static final String NOT_RETRYABLE = "not_retryable";
    /** Stop: the outcome may have executed and a duplicate execution would not be harmless. */
    public static final String UNSAFE_TO_REPEAT = "unsafe_to_repeat";
    /** Stop: response bytes already went to the client; the call is committed. */
    public static final String RESPONSE_STARTED = "response_started";

    public RetryDecision {
        requireNonNull(action, "action");
        requireNonNull(delay, "delay");
        requireNonNull(reason, "reason");
        requireNonNull(outcome, "outcome");
        if (delay.isNegative()) {  // per decision: the message is built only on failure
            throw new IllegalArgumentException("delay " + delay + " (expected: >= 0)");
        }
        requireArgument(action == Action.STOP || (!store && !releaseKey && !deadLetter && problem == null),
                "a retry neither stores, releases, dead-letters nor answers (expected: STOP for those)");
        requireArgument(!(store && releaseKey), "store and releaseKey together (expected: at most one)");
    }

    static RetryDecision retry(Duration delay, String reason, OutcomeClass outcome) {
        return new RetryDecision(Action.RETRY, delay, reason, outcome, false, false, false, null);
    }

    static RetryDecision stop(String reason, OutcomeClass outcome, boolean store, boolean release, boolean dlq, Problem problem) {
        return new RetryDecision(Action.STOP, Duration.ZERO, reason, outcome, store, release, dlq, problem);
    }

    public boolean isRetry() {
        return action == Action.RETRY;
    }

    /** The problem to answer instead of the upstream's response, if any. */
    public Optional<Problem> answerProblem() {
        return Optional.ofNullable(problem);
    }
}
