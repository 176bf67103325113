package dev.idemproxy.core.retry;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.problem.Problem;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.random.RandomGenerator;

/**
 * Decides, after each upstream attempt, whether to retry and how the call ends (docs/idempotency.md).
 * The order of the questions:
 * <ol>
 *   <li><b>executed</b> (2xx, 3xx, 4xx other than 408/409/425/429, unless the route's
 *       {@code notExecutedOn} lists the status): stop, store, replay.</li>
 *   <li><b>unknown where a duplicate is not harmless</b> (5xx, read-timeout, idle-timeout, reset,
 *       on a route not tagged {@code idempotent}, a method other than GET/HEAD/OPTIONS/PUT/DELETE,
 *       no receipt NOT_FOUND): stop, store as it was (a 5xx as is; a failure as 504
 *       {@code ambiguous-outcome}, or {@code deadline-exceeded} when the deadline expired), DLQ.</li>
 *   <li>From here the outcome is safe to repeat (not executed, or unknown where harmless); a stop
 *       releases the key. Response bytes already sent: stop.</li>
 *   <li>A failure with the deadline expired: stop, 504 {@code deadline-exceeded}.</li>
 *   <li>retryOn does not list it: stop. maxAttempts (first included) reached: stop.</li>
 *   <li>429 or 503 with a valid Retry-After: wait exactly that when it is ≤ maxRetryAfter and fits
 *       the deadline, else stop and hand the response back at once. Otherwise wait the backoff,
 *       if the next attempt can start before the deadline.</li>
 *   <li>Task budget, then route budget (the route token is taken here): else stop with the last failure.</li>
 * </ol>
 * A stop that answers a failure (no response) carries a problem: {@code upstream-unreachable}
 * (502) when nothing was sent, {@code ambiguous-outcome} (504) when it may have executed,
 * {@code deadline-exceeded} (504) when the deadline ended it. A response status is always
 * answered as is. Every stop writes a DLQ entry except an executed outcome and a not-executed
 * or Retry-After response handed back by design ({@code not_retryable}, {@code retry_after}).
 *
 * <p>This class is immutable and thread-safe when its random source is.
 */
public final class RetryRules {
    /** The decision for an answer the upstream executed, the same for every call (a value: no need for one per call). */
    private static final RetryDecision EXECUTED = RetryDecision.store(RetryReason.EXECUTED, OutcomeClass.EXECUTED, false, null);
    /** Methods whose duplicate execution is harmless by HTTP semantics (RFC 9110 §9.2.2). */
    static final Set<String> IDEMPOTENT_METHODS = Set.of("GET", "HEAD", "OPTIONS", "PUT", "DELETE");

    private final RandomGenerator random;
    private final Clock clock;

    /**
     * @param random jitter source ({@link java.util.concurrent.ThreadLocalRandom#current()} in production)
     * @param clock  wall clock, for HTTP-date {@code Retry-After} values
     */
    public RetryRules(RandomGenerator random, Clock clock) {
        this.random = requireNonNull(random, "random");
        this.clock = requireNonNull(clock, "clock");
    }

    /**
     * The decision after {@code attempt} under {@code policy}.
     *
     * @param repeatHarmless whether executing the call twice does no harm (the call's dialect
     *                       says: a route tagged {@code idempotent}, an idempotent method, an MCP
     *                       tool annotated {@code idempotentHint}); a receipt's NOT_FOUND makes it so too
     */
    public RetryDecision decide(RetryPolicy policy, boolean repeatHarmless, FinishedAttempt attempt, Deadline deadline,
            RetryBudgets budgets) {
        requireNonNull(policy, "policy");
        requireNonNull(attempt, "attempt");
        requireNonNull(deadline, "deadline");
        requireNonNull(budgets, "budgets");
        AttemptOutcome o = attempt.outcome();
        OutcomeClass cls = o.outcomeClass();
        if (cls == OutcomeClass.EXECUTED) {
            return EXECUTED;
        }
        boolean failureAtDeadline = o.isFailure() && deadline.expired();
        if (cls == OutcomeClass.UNKNOWN && !(repeatHarmless || attempt.receiptNotFound())) {
            RetryReason reason = attempt.responseStarted() ? RetryReason.RESPONSE_STARTED
                    : failureAtDeadline ? RetryReason.DEADLINE
                    : o.listedIn(policy.retryOn()) ? RetryReason.UNSAFE_TO_REPEAT : RetryReason.NOT_RETRYABLE;
            Problem problem = !o.isFailure() ? null
                    : failureAtDeadline ? Problem.DEADLINE_EXCEEDED : Problem.AMBIGUOUS_OUTCOME;
            return RetryDecision.store(reason, cls, true, problem);
        }
        if (attempt.responseStarted()) {
            return end(o, cls, RetryReason.RESPONSE_STARTED, failureAtDeadline);
        }
        if (failureAtDeadline) {
            return end(o, cls, RetryReason.DEADLINE, true);
        }
        if (!o.listedIn(policy.retryOn())) {
            return end(o, cls, RetryReason.NOT_RETRYABLE, false);
        }
        if (attempt.number() >= policy.maxAttempts()) {
            return end(o, cls, RetryReason.ATTEMPTS_EXHAUSTED, false);
        }
        Duration delay;
        RetryReason reason;
        Optional<Duration> retryAfter = honoursRetryAfter(o) ? RetryAfter.parse(o.retryAfter(), clock) : Optional.empty();
        if (retryAfter.isPresent()) {
            delay = retryAfter.get();
            if (delay.compareTo(policy.maxRetryAfter()) > 0 || !deadline.fits(delay)) {
                return end(o, cls, RetryReason.RETRY_AFTER, false);
            }
            reason = RetryReason.RETRY_AFTER;
        } else {
            delay = new Backoff(policy.backoff(), random).delayBefore(attempt.number() + 1);
            if (!deadline.fits(delay)) {
                return end(o, cls, RetryReason.DEADLINE, false);
            }
            reason = RetryReason.BACKOFF;
        }
        if (!budgets.taskAllows()) {
            return end(o, cls, RetryReason.BUDGET_TASK, false);
        }
        if (!budgets.tryAcquireRoute()) {
            return end(o, cls, RetryReason.BUDGET_ROUTE, false);
        }
        return RetryDecision.retry(delay, reason, o);
    }

    /** True for a method whose duplicate execution is harmless by HTTP semantics (RFC 9110 §9.2.2). */
    public static boolean idempotentMethod(String method) {
        return IDEMPOTENT_METHODS.contains(method.toUpperCase(Locale.ROOT));
    }

    /**
     * Every {@link RetryDecision#reason()} a retry under {@code policy} can carry: the reason of each
     * failure and status that its {@code retryOn} lists and that is not in the executed class (the
     * route's {@code notExecutedOn} applied), plus {@code retry_after} when it lists 429 or 503.
     * Bounded by the config; used to register the route's {@code idemproxy_retries_total} series
     * before the first retry.
     */
    public static Set<String> retryReasons(RetryPolicy policy, Set<Integer> notExecutedOn) {
        requireNonNull(notExecutedOn, "notExecutedOn");
        return reasons(policy, notExecutedOn);
    }

    /** {@link #retryReasons(RetryPolicy, Set)} of a route with no {@code notExecutedOn}. */
    public static Set<String> retryReasons(RetryPolicy policy) {
        return reasons(policy, Set.of());
    }

    private static Set<String> reasons(RetryPolicy policy, Set<Integer> notExecutedOn) {
        requireNonNull(policy, "policy");
        Set<String> reasons = new TreeSet<>();
        for (FailureClass f : FailureClass.values()) {
            AttemptOutcome failed = AttemptOutcome.failed(f);
            if (failed.listedIn(policy.retryOn())) {
                reasons.add(failed.reason());
            }
        }
        for (String listed : policy.retryOn()) {
            int status = statusOrZero(listed);
            if (status == 0) {
                continue;
            }
            AttemptOutcome answered = AttemptOutcome.answered(status);
            if (answered.outcomeClass(notExecutedOn) != OutcomeClass.EXECUTED) {
                reasons.add(answered.reason());
            }
            if (status == 429 || status == 503) {
                reasons.add(RetryReason.RETRY_AFTER.spelling());
            }
        }
        return Collections.unmodifiableSet(reasons);
    }

    /** The status a {@code retryOn} entry names, or 0 for a failure spelling. */
    private static int statusOrZero(String listed) {
        if (listed.length() != 3 || !listed.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return 0;
        }
        int status = Integer.parseInt(listed);
        return status >= 100 && status <= 599 ? status : 0;
    }

    /**
     * Ends a call whose outcome, of class {@code cls}, is safe to repeat: the key is released;
     * nothing is stored.
     */
    private static RetryDecision end(AttemptOutcome o, OutcomeClass cls, RetryReason reason, boolean deadlineExceeded) {
        Problem problem = null;
        if (o.isFailure()) {
            problem = deadlineExceeded || reason == RetryReason.DEADLINE ? Problem.DEADLINE_EXCEEDED
                    : cls == OutcomeClass.NOT_EXECUTED ? Problem.UPSTREAM_UNREACHABLE
                    : Problem.AMBIGUOUS_OUTCOME;
        }
        // Handed back by design (no DLQ): only a response that was not executed (a 429, 408, 425,
        // a notExecutedOn status…), never a 5xx that may have executed, whatever its Retry-After
        // (docs/retries.md).
        boolean byDesign = !o.isFailure() && cls == OutcomeClass.NOT_EXECUTED
                && (reason == RetryReason.RETRY_AFTER || reason == RetryReason.NOT_RETRYABLE);
        return RetryDecision.release(reason, cls, !byDesign, problem);
    }

    /** RFC 9110 §10.2.3: Retry-After on 429 (RFC 6585) and 503 says when to come back. */
    private static boolean honoursRetryAfter(AttemptOutcome o) {
        return !o.isFailure() && o.retryAfter() != null && (o.status() == 429 || o.status() == 503);
    }
}
