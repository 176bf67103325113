package dev.idemproxy.core.call;

import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.receipt.ReceiptAnswer;
import dev.idemproxy.core.receipt.ReceiptUrls;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.Backoff;
import dev.idemproxy.core.retry.OutcomeClass;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * "Query the receipt before retrying": when an attempt's outcome is unknown on a route with a
 * {@code receipt} endpoint, and repeating it would not otherwise be harmless, ask the upstream
 * what became of the call before deciding. SUCCESS answers from the receipt's result (stored
 * like an executed response); NOT_FOUND makes a retry with the same key and call id safe;
 * PROCESSING is polled with the route's backoff inside the deadline; FAILED ends the call.
 * A check that does not resolve (the receipt unreadable after three tries, or still PROCESSING
 * when the deadline comes) ends the call as that unknown outcome would have ended without a
 * receipt endpoint (docs/idempotency.md), stored and dead-lettered: an upstream 5xx is answered as it
 * came (kept whole meanwhile by {@link ResponseRelay}; one larger than {@code maxResponseBody}
 * is not kept and answers 504 {@code ambiguous-outcome}); a failure (read-timeout, reset) answers
 * 504 {@code deadline-exceeded} with reason {@code deadline} when the deadline ended the check,
 * else 504 {@code ambiguous-outcome}.
 * Not thread-safe: used on the call's event loop.
 */
final class ReceiptChecks {
    static final Duration MAX_QUERY_TIME = Duration.ofSeconds(5);
    static final String RECEIPT_UNRESOLVED = "receipt_unresolved";

    private final ProtectedCall c;
    private int polls;

    ReceiptChecks(ProtectedCall c) {
        this.c = c;
    }

    boolean applies(AttemptOutcome outcome) {
        Route r = c.call.route();
        return r.receipt() != null && outcome.outcomeClass() == OutcomeClass.UNKNOWN
                && !c.repeatHarmless;
    }

    /** null: asking about this call's own attempt; else the earlier call whose claim was taken over. */
    private String prior;

    void start(AttemptOutcome outcome) {
        c.tries.checking(outcome);
        polls = 0;
        prior = null;
        query(outcome);
    }

    /** Asks about the earlier owner of a taken-over claim; NOT_FOUND lets this call start its attempts. */
    void startForPrior(String priorCallId) {
        polls = 0;
        prior = priorCallId;
        query(AttemptOutcome.failed(dev.idemproxy.core.retry.FailureClass.RESET));
    }

    private void query(AttemptOutcome outcome) {
        if (c.deadline.expired()) {
            unresolved(outcome, true, "the deadline expired before the receipt could be read");
            return;
        }
        CallIdentity id = c.identity;
        URI url = ReceiptUrls.expand(c.call.route().receipt().url(), prior != null ? prior : id.callId(), id.key(),
                id.bizId());
        Duration timeout = min(c.deadline.attemptTimeout(c.call.route().timeouts().perTry()), MAX_QUERY_TIME);
        OnLoop.then(c.services.receipts().query(c.call.route(), url, c.client.loop(), timeout), c.client.loop(),
                (answer, never) -> answered(outcome, answer));
    }

    private void answered(AttemptOutcome outcome, ReceiptAnswer a) {
        if (c.settled) {
            return;
        }
        c.tries.receiptAnswered(a.status().name());
        switch (a.status()) {
            case SUCCESS:
                c.relay.fromReceipt(stop("receipt_success", OutcomeClass.EXECUTED, false, null), success(a.result()), null, null);
                return;
            case NOT_FOUND:
                if (prior != null) {
                    c.attempts.firstAttempt();
                } else {
                    c.attempts.decideAfterReceipt(outcome, true, "the receipt says the call was not found");
                }
                return;
            case FAILED:
                c.relay.fromReceipt(stop("receipt_failed", OutcomeClass.EXECUTED, true, Problem.UPSTREAM_FAILED), null,
                        Problem.UPSTREAM_FAILED, "the upstream's receipt says the call failed");
                return;
            case PROCESSING:
                Duration wait = new Backoff(c.call.route().retry().backoff(), c.services.random()).delayBefore(++polls + 1);
                if (!c.deadline.fits(wait)) {
                    unresolved(outcome, true, "still PROCESSING when the deadline came");
                    return;
                }
                c.client.loop().schedule(() -> query(outcome), wait.toMillis(), TimeUnit.MILLISECONDS);
                return;
            default:
                // Unreadable; when the deadline has expired meanwhile (the query's time was cut
                // short by it), the deadline ended the check, as the retry rules judge a failure then.
                unresolved(outcome, c.deadline.expired(), a.detail());
        }
    }

    /** @param atDeadline the deadline ended the check (no poll fits, or it expired before an answer) */
    private void unresolved(AttemptOutcome outcome, boolean atDeadline, String detail) {
        if (c.relay.holdsWhole()) {
            c.relay.answerWhole(stop(RECEIPT_UNRESOLVED, OutcomeClass.UNKNOWN, true, null));
            return;
        }
        if (atDeadline && outcome.isFailure()) {
            // As RetryRules ends such a call when the deadline expires during an attempt.
            c.relay.fromReceipt(stop(RetryDecision.DEADLINE, OutcomeClass.UNKNOWN, true, Problem.DEADLINE_EXCEEDED), null,
                    Problem.DEADLINE_EXCEEDED, outcome.reason() + "; receipt unresolved: " + detail);
            return;
        }
        c.relay.fromReceipt(stop(RECEIPT_UNRESOLVED, OutcomeClass.UNKNOWN, true, Problem.AMBIGUOUS_OUTCOME), null,
                Problem.AMBIGUOUS_OUTCOME, outcome.reason() + "; receipt unresolved: " + detail);
    }

    private static RetryDecision stop(String reason, OutcomeClass cls, boolean deadLetter, Problem problem) {
        return new RetryDecision(RetryDecision.Action.STOP, Duration.ZERO, reason, cls, true, false, deadLetter, problem);
    }

    private StoredResponse success(byte[] result) {
        return new StoredResponse(200, List.of(new StoredHeader("content-type", "application/json"),
                new StoredHeader(CallIdentity.X_CALL_ID.toString(), c.identity.callId()),
                new StoredHeader("X-Receipt-Status", "SUCCESS")), result);
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
