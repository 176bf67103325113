package dev.idemproxy.core.call;

import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.receipt.ReceiptAnswer;
import dev.idemproxy.core.receipt.ReceiptUrls;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.Backoff;
import dev.idemproxy.core.retry.Deadline;
import dev.idemproxy.core.retry.FailureClass;
import dev.idemproxy.core.retry.OutcomeClass;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.retry.RetryReason;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * "Query the receipt before retrying" (docs/idempotency.md): when an attempt's outcome is unknown
 * on a route with a {@code receipt} endpoint, and repeating it would not otherwise be harmless,
 * the upstream is asked what became of the call before deciding. SUCCESS answers from the
 * receipt's result (stored like an executed response); NOT_FOUND makes a retry with the same key
 * and call id safe; PROCESSING is polled with the route's backoff inside the deadline; FAILED ends
 * the call. A check that does not resolve (unreadable after its tries, or still PROCESSING when
 * the deadline comes) ends the call as that unknown outcome would have ended without a receipt
 * endpoint: an upstream 5xx kept whole is answered as it came; a failure answers 504
 * {@code deadline-exceeded} when the deadline ended the check, else 504 {@code ambiguous-outcome}.
 *
 * <p>One check (its polls) of one call; what each answer means is a {@link Step}, a value the
 * attempt loop acts on. Not thread-safe: used on the call's event loop.
 */
final class ReceiptCheck {
    /** The longest one query of the receipt may take. */
    static final Duration MAX_QUERY_TIME = Duration.ofSeconds(5);

    /** What the receipt's answer means. */
    sealed interface Step {}

    /** The call ends with {@code answer} (the receipt's result), replayed as it was. */
    record Answer(RetryDecision decision, StoredResponse answer) implements Step {}

    /** The call ends with a proxy-made problem. */
    record Fail(RetryDecision decision, Problem problem, String detail) implements Step {}

    /** The call ends with the upstream's answer kept whole, as it came. */
    record AnswerKept(RetryDecision decision) implements Step {}

    /** NOT_FOUND: nothing ran. For the call's own attempt, decide again with a repeat made harmless; for the prior owners (the last of them), start. */
    record NotFound(String detail) implements Step {}

    /** PROCESSING: ask again after {@code wait}. */
    record Poll(Duration pause) implements Step {}

    /** The unknown outcome the check is about. */
    final AttemptOutcome outcome;
    /**
     * Empty: the check is about the call's own attempt; else about the earlier calls whose claims
     * were taken over, oldest first, asked one after the other: every one must be NOT_FOUND before
     * the call may start (the last owner alone is not enough: it may have taken over from a call
     * that ran, and failed to record what it learnt).
     */
    private final List<String> priors;
    /** The prior asked about now. */
    private int prior;
    /** Whether the upstream's answer (a 5xx) is kept whole meanwhile, to be answered as it came if the check does not resolve. */
    private final boolean keptWhole;
    private int polls;

    private ReceiptCheck(AttemptOutcome outcome, List<String> priors, boolean keptWhole) {
        this.outcome = outcome;
        this.priors = priors;
        this.keptWhole = keptWhole;
    }

    /** Whether a receipt check decides after {@code outcome} on {@code route}, for a call whose repeat is (not) harmless. */
    static boolean applies(Route route, AttemptOutcome outcome, boolean repeatHarmless) {
        return route.receipt() != null && outcome.outcomeClass() == OutcomeClass.UNKNOWN && !repeatHarmless;
    }

    /** A check of the call's own attempt, which ended with {@code outcome} (no answer kept). */
    static ReceiptCheck of(AttemptOutcome outcome) {
        return new ReceiptCheck(outcome, List.of(), false);
    }

    /** A check of the call's own attempt, whose answer (of class {@code outcome}) is kept whole meanwhile. */
    static ReceiptCheck keepingAnswer(AttemptOutcome outcome) {
        return new ReceiptCheck(outcome, List.of(), true);
    }

    /** A check of the earlier owners of a taken-over claim, oldest first; NOT_FOUND from all lets this call start its attempts. */
    static ReceiptCheck ofPriors(List<String> priorCallIds) {
        if (priorCallIds.isEmpty()) {
            throw new IllegalArgumentException("a check of the prior owners names at least one");
        }
        return new ReceiptCheck(AttemptOutcome.failed(FailureClass.RESET), List.copyOf(priorCallIds), false);
    }

    /** Whether the check is about the earlier owners of a taken-over claim (else about the call's own attempt). */
    boolean aboutPriors() {
        return !priors.isEmpty();
    }

    private URI url(Route route, CallIdentity id) {
        return ReceiptUrls.expand(route.receipt().url(), aboutPriors() ? priors.get(prior) : id.callId(), id.key(), id.bizId());
    }

    /** How long the next query may take: {@code perTry}, the time left, or {@link #MAX_QUERY_TIME}, the least. */
    private static Duration queryTimeout(Route route, Deadline deadline) {
        Duration t = deadline.attemptTimeout(route.timeouts().perTry());
        return t.compareTo(MAX_QUERY_TIME) <= 0 ? t : MAX_QUERY_TIME;
    }

    /**
     * The step after the receipt answered {@code a}.
     *
     */
    Step answered(ReceiptAnswer a, CallContext cx) {
        Route route = cx.call().route();
        Deadline deadline = cx.deadline();
        switch (a.status()) {
            case SUCCESS:
                return new Answer(stop(RetryReason.RECEIPT_SUCCESS, OutcomeClass.EXECUTED, false, null),
                        success(a.result(), cx.identity().callId()));
            case NOT_FOUND:
                if (prior + 1 < priors.size()) {
                    prior++;  // this earlier owner never ran: ask about the next
                    polls = 0;
                    return query(cx);
                }
                return new NotFound("the receipt says the call was not found");
            case FAILED:
                return new Fail(stop(RetryReason.RECEIPT_FAILED, OutcomeClass.EXECUTED, true, Problem.UPSTREAM_FAILED),
                        Problem.UPSTREAM_FAILED, "the upstream's receipt says the call failed");
            case PROCESSING:
                Duration wait = new Backoff(route.retry().backoff(), cx.services().random()).delayBefore(++polls + 1);
                return deadline.fits(wait) ? new Poll(wait) : unresolved(true, "still PROCESSING when the deadline came");
            default:
                // Unreadable; when the deadline has expired meanwhile (the query's time was cut
                // short by it), the deadline ended the check, as the retry rules judge a failure then.
                return unresolved(deadline.expired(), a.detail());
        }
    }

    /**
     * Asks the receipt endpoint; its answer comes back through the call's door
     * ({@link CallEvent.ReceiptAnswered}). A step at once, instead, when the deadline has expired.
     *
     */
    Step query(CallContext cx) {
        Route route = cx.call().route();
        if (cx.deadline().expired()) {
            return unresolved(true, "the deadline expired before the receipt could be read");
        }
        cx.door().when(cx.services().receipts().query(route, url(route, cx.identity()), cx.door().loop(),
                queryTimeout(route, cx.deadline())), (a, never) -> new CallEvent.ReceiptAnswered(a));
        return null;
    }

    /** @param atDeadline the deadline ended the check (no poll fits, or it expired before an answer) */
    private Step unresolved(boolean atDeadline, String detail) {
        if (keptWhole) {
            return new AnswerKept(stop(RetryReason.RECEIPT_UNRESOLVED, OutcomeClass.UNKNOWN, true, null));
        }
        if (atDeadline && outcome.isFailure()) {
            // As RetryRules ends such a call when the deadline expires during an attempt.
            return new Fail(stop(RetryReason.DEADLINE, OutcomeClass.UNKNOWN, true, Problem.DEADLINE_EXCEEDED),
                    Problem.DEADLINE_EXCEEDED, outcome.reason() + "; receipt unresolved: " + detail);
        }
        return new Fail(stop(RetryReason.RECEIPT_UNRESOLVED, OutcomeClass.UNKNOWN, true, Problem.AMBIGUOUS_OUTCOME),
                Problem.AMBIGUOUS_OUTCOME, outcome.reason() + "; receipt unresolved: " + detail);
    }

    private static RetryDecision stop(RetryReason reason, OutcomeClass cls, boolean deadLetter, Problem problem) {
        return RetryDecision.store(reason, cls, deadLetter, problem);
    }

    private static StoredResponse success(byte[] result, String callId) {
        return new StoredResponse(200, List.of(new StoredHeader("content-type", "application/json"),
                new StoredHeader(CallIdentity.X_CALL_ID.toString(), callId),
                new StoredHeader("X-Receipt-Status", "SUCCESS")), result);
    }
}
