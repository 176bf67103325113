package dev.idemproxy.core.retry;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.problem.Problem;
import java.time.Duration;
import java.util.Optional;

/**
 * What to do after an attempt: {@link Action#RETRY} after {@code delay}, or {@link Action#STOP}
 * and finish the call. A STOP says what becomes of the idempotency record and the caller's answer:
 * <ul>
 *   <li>{@code fate}: {@link RecordFate#STORE} completes the record with this answer, replayed to
 *       duplicates; {@link RecordFate#RELEASE} releases the claim so the next duplicate executes afresh;</li>
 *   <li>{@code deadLetter}: the call ended unsuccessfully; write a DLQ entry and a FAILED receipt;</li>
 *   <li>{@code problem}: answer this problem instead of the upstream's response (empty: answer
 *       the upstream's response as it is).</li>
 * </ul>
 * A RETRY keeps the key claimed through the wait and charges one task retry (the route budget's
 * token was taken while deciding); it has no fate. {@code reason} is one of a closed set
 * ({@link RetryReason}); a retry after the backoff is spelled as its outcome is in
 * {@code retryOn} ({@code outcomeWord}: a status code or a failure), fit for a metric tag.
 * This class is immutable.
 *
 * @param outcomeWord the outcome's {@code retryOn} spelling ({@link AttemptOutcome#reason()}); null
 *                    for a decision taken without an upstream outcome (a receipt's, a takeover's)
 */
public record RetryDecision(
        Action action,
        Duration delay,
        RetryReason reason,
        String outcomeWord,
        OutcomeClass outcome,
        RecordFate fate,
        boolean deadLetter,
        Problem problem) {

    public enum Action { RETRY, STOP }

    public RetryDecision {
        requireNonNull(action, "action");
        requireNonNull(delay, "delay");
        requireNonNull(reason, "reason");
        requireNonNull(outcome, "outcome");
        if (delay.isNegative()) {  // per decision: the message is built only on failure
            throw new IllegalArgumentException("delay " + delay + " (expected: >= 0)");
        }
        if ((action == Action.RETRY) != (fate == null) || (action == Action.RETRY && (deadLetter || problem != null))) {
            throw new IllegalArgumentException("a retry has no fate, dead letter or problem, and a stop has a fate (expected: "
                    + "RETRY without them, STOP with a fate)");
        }
        if (reason == RetryReason.BACKOFF && outcomeWord == null) {
            throw new IllegalArgumentException("a retry after the backoff without its outcome's word (expected: the outcome's reason)");
        }
    }

    static RetryDecision retry(Duration delay, RetryReason reason, AttemptOutcome o) {
        return new RetryDecision(Action.RETRY, delay, reason, o.reason(), o.outcomeClass(), null, false, null);
    }

    /** A stop that keeps the answer for duplicates. */
    public static RetryDecision store(RetryReason reason, OutcomeClass outcome, boolean deadLetter, Problem problem) {
        return new RetryDecision(Action.STOP, Duration.ZERO, reason, null, outcome, RecordFate.STORE, deadLetter, problem);
    }

    /** A stop that releases the key. */
    static RetryDecision release(RetryReason reason, OutcomeClass outcome, boolean deadLetter, Problem problem) {
        return new RetryDecision(Action.STOP, Duration.ZERO, reason, null, outcome, RecordFate.RELEASE, deadLetter, problem);
    }

    public boolean isRetry() {
        return action == Action.RETRY;
    }

    /** A stop that completes the record with the answer. */
    public boolean store() {
        return fate == RecordFate.STORE;
    }

    /** A stop that releases the key. */
    public boolean releaseKey() {
        return fate == RecordFate.RELEASE;
    }

    /** The reason as metrics, logs, receipts and dead letters spell it. */
    public String spelling() {
        return reason == RetryReason.BACKOFF ? outcomeWord : reason.spelling();
    }

    /** The problem to answer instead of the upstream's response, if any. */
    public Optional<Problem> answerProblem() {
        return Optional.ofNullable(problem);
    }
}
