package dev.idemproxy.app.telemetry;

import dev.idemproxy.core.call.CallSettlement;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.retry.OutcomeClass;
import dev.idemproxy.core.retry.RetryDecision;

/** What became of a traced call: the {@code idemproxy.outcome} attribute of its SERVER span, as spelled here. */
enum TraceOutcome {
    /** Forwarded, and the upstream's answer was stored (or passed on) as executed. */
    EXECUTED("executed"),
    /** Forwarded, and nothing ran (a 429 given back, connect failures): its key was released. */
    NOT_EXECUTED("not-executed"),
    /** Ended unsuccessfully (retries, budget or deadline exhausted, an ambiguous outcome) and went to the dead-letter queue. */
    DEAD_LETTERED("dead-lettered"),
    /** Ended unsuccessfully on a route whose dead letters are off. */
    FAILED("failed"),
    /** A duplicate answered from the store (a waiter too). */
    REPLAYED("replayed"),
    /** Refused for its key: in flight (409), reused with another payload (422), or its result not retained (409). */
    CONFLICT("conflict"),
    /** Refused by the proxy for another reason (the store did not answer: 503). */
    REJECTED("rejected"),
    /** Its client left before it was forwarded: nothing ran. */
    ABANDONED("abandoned");

    final String spelling;

    TraceOutcome(String spelling) {
        this.spelling = spelling;
    }

    /** The outcome of a call that settled, on a route that keeps dead letters or not. */
    static TraceOutcome of(CallSettlement s, boolean deadLetters) {
        RetryDecision d = s.decision();
        if (s.truncated() || d == null || d.deadLetter()) {
            return deadLetters ? DEAD_LETTERED : FAILED;
        }
        return d.outcome() == OutcomeClass.EXECUTED || d.store() ? EXECUTED : NOT_EXECUTED;
    }

    /** The outcome of a call the gate refused with {@code p}. */
    static TraceOutcome refused(Problem p) {
        return p == Problem.KEY_IN_FLIGHT || p == Problem.KEY_REUSED_WITH_DIFFERENT_PAYLOAD || p == Problem.RESULT_NOT_RETAINED
                ? CONFLICT : REJECTED;
    }
}
