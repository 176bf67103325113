package dev.idemproxy.core.tries;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.FailureClass;
import dev.idemproxy.core.retry.RecordFate;
import dev.idemproxy.core.retry.OutcomeClass;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.retry.RetryDecision.Action;
import dev.idemproxy.core.retry.RetryReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TryLogTest {
    private long now = 1_000_000_000L;
    private final TryLog log = new TryLog(() -> now, now);
    private final List<RetryDecision> acted = new ArrayList<>();

    private void advanceMs(long ms) {
        now += ms * 1_000_000L;
    }

    /** A retry after the backoff, spelled {@code word}, or after Retry-After when {@code word} is null. */
    private static RetryDecision retry(long ms, String word, OutcomeClass c) {
        return new RetryDecision(Action.RETRY, Duration.ofMillis(ms), word == null ? RetryReason.RETRY_AFTER : RetryReason.BACKOFF,
                word, c, null, false, null);
    }

    private static RetryDecision stop(RetryReason reason, OutcomeClass c, boolean store, boolean dlq, Problem p) {
        return new RetryDecision(Action.STOP, Duration.ZERO, reason, null, c, store ? RecordFate.STORE : RecordFate.RELEASE, dlq, p);
    }

    /** Try {@code n} lasts {@code ms}, ends with {@code outcome}, and {@code d} follows it. */
    private void tryOnce(int n, long ms, AttemptOutcome outcome, RetryDecision d) {
        log.started(n);
        advanceMs(ms);
        log.ended(n, outcome);
        log.decided(n, d);
        acted.add(d);
    }

    @Test
    void aCallRetriedTwiceThenAnsweredKeepsThreeTriesWithTheirClassesWaitsAndReasons() {
        advanceMs(3);
        tryOnce(1, 40, AttemptOutcome.answered(503), retry(200, "503", OutcomeClass.UNKNOWN));
        advanceMs(200);
        tryOnce(2, 5, AttemptOutcome.failed(FailureClass.CONNECT_FAILURE), retry(400, "connect-failure", OutcomeClass.NOT_EXECUTED));
        advanceMs(400);
        tryOnce(3, 12, AttemptOutcome.answered(429, "1"), retry(1000, null, OutcomeClass.NOT_EXECUTED));
        advanceMs(1000);
        tryOnce(4, 7, AttemptOutcome.answered(201), stop(RetryReason.EXECUTED, OutcomeClass.EXECUTED, true, false, null));

        CallTries t = log.finish(acted.get(acted.size() - 1));

        assertThat(acted).hasSize(4);
        assertThat(t.omitted()).isZero();
        assertThat(t.tries()).containsExactly(
                new Try(1, 3, 40, 503, null, TryClass.UNKNOWN, TryNext.RETRY, 200, Try.BACKOFF, -1, null, null),
                new Try(2, 243, 5, 0, "connect-failure", TryClass.NOT_EXECUTED, TryNext.RETRY, 400, Try.BACKOFF, -1, null, null),
                new Try(3, 648, 12, 429, null, TryClass.NOT_EXECUTED, TryNext.RETRY, 1000, Try.RETRY_AFTER, -1, null, null),
                new Try(4, 1660, 7, 201, null, TryClass.EXECUTED, TryNext.ANSWER, -1, "executed", -1, null, null));
    }

    @Test
    void aFailureThatStopsTheCallIsAStopWithTheDecisionsReasonAndAnUpstreamAnswerThatEndsItIsAnAnswer() {
        tryOnce(1, 30, AttemptOutcome.failed(FailureClass.READ_TIMEOUT),
                stop(RetryReason.UNSAFE_TO_REPEAT, OutcomeClass.UNKNOWN, true, true, Problem.AMBIGUOUS_OUTCOME));
        assertThat(log.finish(acted.get(0)).tries().get(0))
                .extracting(Try::failure, Try::outcomeClass, Try::next, Try::why)
                .containsExactly("read-timeout", TryClass.UNKNOWN, TryNext.STOP, "unsafe_to_repeat");

        TryLog other = new TryLog(() -> now, now);
        other.started(1);
        RetryDecision exhausted = stop(RetryReason.ATTEMPTS_EXHAUSTED, OutcomeClass.UNKNOWN, false, true, null);
        other.ended(1, AttemptOutcome.answered(503));
        other.decided(1, exhausted);
        assertThat(other.finish(exhausted).tries().get(0).next()).isEqualTo(TryNext.ANSWER);
    }

    @Test
    void aReceiptCheckIsRecordedWithItsAnswerItsDurationAndWhatFollowedIt() {
        log.started(1);
        advanceMs(20);
        log.ended(1, AttemptOutcome.answered(502));
        log.checking();
        advanceMs(30);
        log.receiptAnswered("PROCESSING");
        advanceMs(50);
        log.receiptAnswered("NOT_FOUND");
        log.decided(1, retry(100, "502", OutcomeClass.UNKNOWN));
        advanceMs(100);
        log.started(2);
        advanceMs(10);
        log.ended(2, AttemptOutcome.failed(FailureClass.READ_TIMEOUT));
        log.checking();
        advanceMs(5);
        log.receiptAnswered("SUCCESS");
        RetryDecision fromReceipt = stop(RetryReason.RECEIPT_SUCCESS, OutcomeClass.EXECUTED, true, false, null);

        CallTries t = log.finish(fromReceipt);

        assertThat(t.tries()).containsExactly(
                new Try(1, 0, 20, 502, null, TryClass.UNKNOWN, TryNext.CHECK_RECEIPT, 100, "NOT_FOUND", 80, TryNext.RETRY, Try.BACKOFF),
                new Try(2, 200, 10, 0, "read-timeout", TryClass.UNKNOWN, TryNext.CHECK_RECEIPT, -1, "SUCCESS", 5, TryNext.ANSWER,
                        "receipt_success"));
    }

    @Test
    void aReceiptAnswerBeforeAnyTryIsNotATry() {
        log.receiptAnswered("NOT_FOUND");  // a takeover's check about the earlier call
        assertThat(log.finish(null)).isEqualTo(CallTries.NONE);
    }

    @Test
    void atMostSixteenTriesAreKeptTheFirstFifteenAndTheLastWithTheCountLeftOut() {
        for (int n = 1; n <= 20; n++) {
            tryOnce(n, 1, AttemptOutcome.answered(503), n < 20 ? retry(1, "503", OutcomeClass.UNKNOWN)
                    : stop(RetryReason.ATTEMPTS_EXHAUSTED, OutcomeClass.UNKNOWN, false, true, null));
        }
        CallTries t = log.finish(acted.get(19));
        assertThat(t.tries()).hasSize(CallTries.MAX_KEPT);
        assertThat(t.omitted()).isEqualTo(4);
        assertThat(t.total()).isEqualTo(20);
        assertThat(t.tries()).extracting(Try::number)
                .containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 20);
        assertThat(t.tries().get(15).why()).isEqualTo("attempts_exhausted");
    }

    @Test
    void aTryTheCallEndedWithoutDecidingOnTakesTheFinalDecision() {
        log.started(1);
        advanceMs(9);
        CallTries t = log.finish(stop(RetryReason.DEADLINE, OutcomeClass.UNKNOWN, false, true, Problem.DEADLINE_EXCEEDED));
        assertThat(t.tries().get(0)).extracting(Try::ms, Try::outcomeClass, Try::next, Try::why)
                .containsExactly(9L, TryClass.UNKNOWN, TryNext.STOP, "deadline");
    }
}
