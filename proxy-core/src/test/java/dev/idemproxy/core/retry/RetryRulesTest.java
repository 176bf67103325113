package dev.idemproxy.core.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import dev.idemproxy.core.testing.TestClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RetryRulesTest {
    private static final BackoffPolicy NO_JITTER =
            new BackoffPolicy(Duration.ofMillis(200), Duration.ofSeconds(10), 2.0, Jitter.parse("none"));
    private static final RetryPolicy RETRY = new RetryPolicy(4, RetryPolicy.DEFAULT_RETRY_ON, NO_JITTER, Duration.ofSeconds(60));

    private final TestClock ticker = new TestClock();
    private final TestClock clock = TestClock.at("2026-01-01T00:00:00Z");
    private final RetryRules rules = new RetryRules(new FixedRandom(0.5), clock);
    private Deadline deadline = Deadline.after(Duration.ofSeconds(60), ticker);

    private static Route route(Set<String> tags, RetryPolicy retry) {
        Route base = Route.passThrough("tickets", RouteMatch.ANY, URI.create("http://tickets.internal"));
        return new Route(base.name(), base.match(), base.upstream(), tags, base.timeouts(), base.idempotency(), retry,
                base.ids(), base.receipt(), base.deadLetter(), base.tls(), base.pool());
    }

    private static final Route PLAIN = route(Set.of(), RETRY);
    private static final Route IDEMPOTENT = route(Set.of(Route.TAG_IDEMPOTENT), RETRY);

    private RetryDecision decide(Route route, String method, int attempt, AttemptOutcome outcome) {
        return decideOn(route, method, FinishedAttempt.of(attempt, outcome), deadline, RetryBudgets.unlimited());
    }

    /** As the HTTP dialect asks: the route's notExecutedOn applied; a repeat is harmless on a route tagged idempotent or for an idempotent method. */
    private RetryDecision decideOn(Route route, String method, FinishedAttempt attempt, Deadline d, RetryBudgets budgets) {
        boolean harmless = route.isTaggedIdempotent() || RetryRules.idempotentMethod(method);
        FinishedAttempt classed = new FinishedAttempt(attempt.number(), attempt.outcome().on(route.notExecutedOn()),
                attempt.responseStarted(), attempt.receiptNotFound());
        return rules.decide(route.retry(), harmless, classed, d, budgets);
    }

    private static AttemptOutcome status(int s) {
        return AttemptOutcome.answered(s);
    }

    private static AttemptOutcome failure(FailureClass f) {
        return AttemptOutcome.failed(f);
    }

    // executed

    @ParameterizedTest
    @ValueSource(ints = {200, 201, 204, 301, 304, 400, 401, 403, 404, 410, 422})
    void executedOutcomesAreStoredAndNeverRetried(int s) {
        RetryDecision d = decide(IDEMPOTENT, "POST", 1, status(s));
        assertThat(d.isRetry()).isFalse();
        assertThat(d.outcome()).isEqualTo(OutcomeClass.EXECUTED);
        assertThat(d.store()).isTrue();
        assertThat(d.releaseKey()).isFalse();
        assertThat(d.deadLetter()).isFalse();
        assertThat(d.answerProblem()).isEmpty();
        assertThat(d.reason()).isEqualTo(RetryReason.EXECUTED);
    }

    // not executed

    @Test
    void connectFailureIsRetriedAfterTheBackoffEvenForPost() {
        RetryDecision d = decide(PLAIN, "POST", 1, failure(FailureClass.CONNECT_FAILURE));
        assertThat(d.isRetry()).isTrue();
        assertThat(d.delay()).isEqualTo(Duration.ofMillis(200));
        assertThat(d.spelling()).isEqualTo("connect-failure");
        assertThat(d.outcome()).isEqualTo(OutcomeClass.NOT_EXECUTED);
    }

    @Test
    void theBackoffGrowsWithTheAttemptNumber() {
        assertThat(decide(PLAIN, "POST", 2, failure(FailureClass.CONNECT_FAILURE)).delay()).isEqualTo(Duration.ofMillis(400));
        assertThat(decide(PLAIN, "POST", 3, failure(FailureClass.CONNECT_FAILURE)).delay()).isEqualTo(Duration.ofMillis(800));
    }

    @Test
    void resetBeforeRequestIsCoveredByConnectFailureOrReset() {
        AttemptOutcome o = failure(FailureClass.RESET_BEFORE_REQUEST);
        assertThat(decide(PLAIN, "POST", 1, o).isRetry()).isTrue();
        assertThat(decide(route(Set.of(), retryOn("reset")), "POST", 1, o).isRetry()).isTrue();
        assertThat(decide(route(Set.of(), retryOn("connect-failure")), "POST", 1, o).isRetry()).isTrue();
        assertThat(decide(route(Set.of(), retryOn("read-timeout", "503")), "POST", 1, o).reason())
                .isEqualTo(RetryReason.NOT_RETRYABLE);
    }

    @Test
    void exhaustedConnectFailuresReleaseTheKeyAndAnswerUpstreamUnreachable() {
        RetryDecision d = decide(PLAIN, "POST", 4, failure(FailureClass.CONNECT_FAILURE));
        assertThat(d.isRetry()).isFalse();
        assertThat(d.reason()).isEqualTo(RetryReason.ATTEMPTS_EXHAUSTED);
        assertThat(d.releaseKey()).isTrue();
        assertThat(d.store()).isFalse();
        assertThat(d.deadLetter()).isTrue();
        assertThat(d.answerProblem()).contains(Problem.UPSTREAM_UNREACHABLE);
    }

    @Test
    void maxAttemptsCountsTheFirstAttempt() {
        Route once = route(Set.of(), new RetryPolicy(1, RetryPolicy.DEFAULT_RETRY_ON, NO_JITTER, Duration.ofSeconds(60)));
        assertThat(decide(once, "GET", 1, failure(FailureClass.CONNECT_FAILURE)).reason()).isEqualTo(RetryReason.ATTEMPTS_EXHAUSTED);
        Route twice = route(Set.of(), new RetryPolicy(2, RetryPolicy.DEFAULT_RETRY_ON, NO_JITTER, Duration.ofSeconds(60)));
        assertThat(decide(twice, "GET", 1, failure(FailureClass.CONNECT_FAILURE)).isRetry()).isTrue();
        assertThat(decide(twice, "GET", 2, failure(FailureClass.CONNECT_FAILURE)).isRetry()).isFalse();
    }

    @Test
    void tooManyRequestsWaitsForRetryAfterSeconds() {
        RetryDecision d = decide(PLAIN, "POST", 1, AttemptOutcome.answered(429, "7"));
        assertThat(d.isRetry()).isTrue();
        assertThat(d.delay()).isEqualTo(Duration.ofSeconds(7));
        assertThat(d.reason()).isEqualTo(RetryReason.RETRY_AFTER);
    }

    @Test
    void tooManyRequestsWaitsForRetryAfterHttpDate() {
        RetryDecision d = decide(PLAIN, "POST", 1, AttemptOutcome.answered(429, "Thu, 01 Jan 2026 00:00:30 GMT"));
        assertThat(d.delay()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void retryAfterBeyondMaxRetryAfterHandsThe429BackAtOnce() {
        RetryDecision d = decide(PLAIN, "POST", 1, AttemptOutcome.answered(429, "61"));
        assertThat(d.isRetry()).isFalse();
        assertThat(d.reason()).isEqualTo(RetryReason.RETRY_AFTER);
        assertThat(d.answerProblem()).isEmpty();
        assertThat(d.releaseKey()).isTrue();
        assertThat(d.store()).isFalse();
        assertThat(d.deadLetter()).isFalse();
    }

    @Test
    void a503WithATooLongRetryAfterGoesBackAtOnceButIsStillADeadLetter() {
        // A 5xx may have executed: handing it back is not a "by design" ending like a 429's.
        RetryDecision d = decide(IDEMPOTENT, "POST", 1, AttemptOutcome.answered(503, "61"));
        assertThat(d.isRetry()).isFalse();
        assertThat(d.reason()).isEqualTo(RetryReason.RETRY_AFTER);
        assertThat(d.outcome()).isEqualTo(OutcomeClass.UNKNOWN);
        assertThat(d.answerProblem()).isEmpty();
        assertThat(d.releaseKey()).isTrue();
        assertThat(d.deadLetter()).isTrue();
    }

    @Test
    void retryAfterBeyondTheDeadlineHandsThe429BackAtOnce() {
        deadline = Deadline.after(Duration.ofSeconds(5), ticker);
        RetryDecision d = decide(PLAIN, "POST", 1, AttemptOutcome.answered(429, "5"));
        assertThat(d.isRetry()).isFalse();
        assertThat(d.reason()).isEqualTo(RetryReason.RETRY_AFTER);
        assertThat(decide(PLAIN, "POST", 1, AttemptOutcome.answered(429, "4")).isRetry()).isTrue();
    }

    @Test
    void aGarbageRetryAfterFallsBackToTheBackoff() {
        RetryDecision d = decide(PLAIN, "POST", 1, AttemptOutcome.answered(429, "soon"));
        assertThat(d.isRetry()).isTrue();
        assertThat(d.delay()).isEqualTo(Duration.ofMillis(200));
        assertThat(d.spelling()).isEqualTo("429");
    }

    @Test
    void retryAfterIsHonouredOn503ButIgnoredOnOtherStatuses() {
        assertThat(decide(IDEMPOTENT, "POST", 1, AttemptOutcome.answered(503, "3")).delay()).isEqualTo(Duration.ofSeconds(3));
        assertThat(decide(IDEMPOTENT, "POST", 1, AttemptOutcome.answered(502, "3")).delay()).isEqualTo(Duration.ofMillis(200));
    }

    @ParameterizedTest
    @ValueSource(ints = {408, 409, 425})
    void otherNotExecutedStatusesAreRetriedWhenListed(int s) {
        Route r = route(Set.of(), retryOn(Integer.toString(s)));
        RetryDecision d = decide(r, "POST", 1, status(s));
        assertThat(d.isRetry()).isTrue();
        assertThat(d.spelling()).isEqualTo(Integer.toString(s));
    }

    @ParameterizedTest
    @ValueSource(ints = {408, 409, 425})
    void notExecutedStatusesNotListedGoBackAsTheyAreAndReleaseTheKey(int s) {
        RetryDecision d = decide(PLAIN, "POST", 1, status(s));
        assertThat(d.isRetry()).isFalse();
        assertThat(d.reason()).isEqualTo(RetryReason.NOT_RETRYABLE);
        assertThat(d.outcome()).isEqualTo(OutcomeClass.NOT_EXECUTED);
        assertThat(d.releaseKey()).isTrue();
        assertThat(d.store()).isFalse();
        assertThat(d.deadLetter()).isFalse();
        assertThat(d.answerProblem()).isEmpty();
    }

    // a route's notExecutedOn

    private static Route notExecutedOn(RetryPolicy retry, Integer... statuses) {
        Route r = route(Set.of(), retry);
        return new Route(r.name(), r.match(), r.upstream(), r.tags(), r.timeouts(), r.idempotency(), r.retry(), r.ids(),
                r.receipt(), r.deadLetter(), r.tls(), r.pool(), r.log(), Set.of(statuses));
    }

    @Test
    void aStatusInNotExecutedOnIsNotExecutedAndRetriedOnAPostOfAnUntaggedRoute() {
        Route r = notExecutedOn(RETRY, 503, 529);
        RetryDecision d = decide(r, "POST", 1, status(503));
        assertThat(d.isRetry()).isTrue();
        assertThat(d.outcome()).isEqualTo(OutcomeClass.NOT_EXECUTED);
        assertThat(d.spelling()).isEqualTo("503");
        assertThat(decide(PLAIN, "POST", 1, status(503)).isRetry()).as("without notExecutedOn").isFalse();
    }

    @Test
    void aNotExecutedOnStatusThatRunsOutOfAttemptsReleasesTheKeyAndStoresNothing() {
        RetryDecision d = decide(notExecutedOn(RETRY, 503), "POST", 4, status(503));
        assertThat(d.isRetry()).isFalse();
        assertThat(d.reason()).isEqualTo(RetryReason.ATTEMPTS_EXHAUSTED);
        assertThat(d.outcome()).isEqualTo(OutcomeClass.NOT_EXECUTED);
        assertThat(d.releaseKey()).isTrue();
        assertThat(d.store()).isFalse();
        assertThat(d.deadLetter()).isTrue();
        assertThat(d.answerProblem()).isEmpty();
    }

    @Test
    void aNotExecutedOnStatusThatRetryOnDoesNotListGoesBackAtOnceReleasedAndNotStored() {
        Route r = notExecutedOn(retryOn("connect-failure"), 529, 400);
        for (int s : new int[] {529, 400}) {
            RetryDecision d = decide(r, "POST", 1, status(s));
            assertThat(d.isRetry()).as("%d", s).isFalse();
            assertThat(d.reason()).isEqualTo(RetryReason.NOT_RETRYABLE);
            assertThat(d.outcome()).isEqualTo(OutcomeClass.NOT_EXECUTED);
            assertThat(d.releaseKey()).isTrue();
            assertThat(d.store()).isFalse();
            assertThat(d.deadLetter()).isFalse();
        }
        assertThat(decide(r, "POST", 1, status(500)).store()).as("a status it does not list").isTrue();
    }

    @Test
    void aReceiptCheckOrRetryAfterSeesTheRoutesClassToo() {
        Route r = notExecutedOn(RETRY, 503);
        assertThat(r.outcomeClass(status(503))).isEqualTo(OutcomeClass.NOT_EXECUTED);
        assertThat(r.outcomeClass(status(502))).isEqualTo(OutcomeClass.UNKNOWN);
        assertThat(r.outcomeClass(failure(FailureClass.READ_TIMEOUT))).isEqualTo(OutcomeClass.UNKNOWN);
        RetryDecision late = decide(r, "POST", 1, AttemptOutcome.answered(503, "61"));
        assertThat(late.reason()).isEqualTo(RetryReason.RETRY_AFTER);
        assertThat(late.deadLetter()).as("handed back by design, like a 429's").isFalse();
        assertThat(late.store()).isFalse();
    }

    @Test
    void aNotExecutedOnStatusThatRetryOnListsIsARetryReasonEvenWhenItWouldBeExecuted() {
        Route r = notExecutedOn(retryOn("404", "503"), 404);
        assertThat(RetryRules.retryReasons(r.retry(), r.notExecutedOn())).containsExactlyInAnyOrder("404", "503", "retry_after");
        assertThat(RetryRules.retryReasons(r.retry())).containsExactlyInAnyOrder("503", "retry_after");
        assertThat(decide(r, "POST", 1, status(404)).spelling()).isEqualTo("404");
    }

    @Test
    void notExecutedOnTakesOnlyStatuses100To599() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> notExecutedOn(RETRY, 600))
                .hasMessageContaining("notExecutedOn 600 (expected: a status 100..599)");
    }

    // unknown

    @Test
    void readTimeoutOnPostIsNotRetriedUnlessRouteIsTaggedIdempotent() {
        RetryDecision d = decide(PLAIN, "POST", 1, failure(FailureClass.READ_TIMEOUT));
        assertThat(d.isRetry()).isFalse();
        assertThat(d.reason()).isEqualTo(RetryReason.UNSAFE_TO_REPEAT);
        assertThat(d.outcome()).isEqualTo(OutcomeClass.UNKNOWN);
        assertThat(d.store()).isTrue();
        assertThat(d.releaseKey()).isFalse();
        assertThat(d.deadLetter()).isTrue();
        assertThat(d.answerProblem()).contains(Problem.AMBIGUOUS_OUTCOME);

        RetryDecision tagged = decide(IDEMPOTENT, "POST", 1, failure(FailureClass.READ_TIMEOUT));
        assertThat(tagged.isRetry()).isTrue();
        assertThat(tagged.spelling()).isEqualTo("read-timeout");
    }

    @ParameterizedTest
    @ValueSource(strings = {"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "get"})
    void unknownOutcomesOfIdempotentMethodsAreRetried(String method) {
        assertThat(decide(PLAIN, method, 1, failure(FailureClass.RESET)).isRetry()).isTrue();
        assertThat(decide(PLAIN, method, 1, status(503)).isRetry()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"POST", "PATCH"})
    void unknown5xxOfUnsafeMethodsIsStoredAsIs(String method) {
        RetryDecision d = decide(PLAIN, method, 1, status(503));
        assertThat(d.isRetry()).isFalse();
        assertThat(d.store()).isTrue();
        assertThat(d.releaseKey()).isFalse();
        assertThat(d.deadLetter()).isTrue();
        assertThat(d.answerProblem()).isEmpty();
        assertThat(d.reason()).isEqualTo(RetryReason.UNSAFE_TO_REPEAT);
    }

    @Test
    void anUnlistedUnknownOnAnUnsafeRouteIsStillStoredAndDeadLettered() {
        RetryDecision d = decide(PLAIN, "POST", 1, status(500));
        assertThat(d.reason()).isEqualTo(RetryReason.NOT_RETRYABLE);
        assertThat(d.store()).isTrue();
        assertThat(d.deadLetter()).isTrue();
    }

    @Test
    void aReceiptNotFoundMakesAnUnknownOutcomeSafeToRetry() {
        FinishedAttempt a = FinishedAttempt.notFound(1, failure(FailureClass.READ_TIMEOUT));
        RetryDecision d = decideOn(PLAIN, "POST", a, deadline, RetryBudgets.unlimited());
        assertThat(d.isRetry()).isTrue();
    }

    @Test
    void exhaustedUnknownOutcomesAreReleasedWhereRepeatingIsHarmless() {
        RetryDecision timeout = decide(IDEMPOTENT, "POST", 4, failure(FailureClass.READ_TIMEOUT));
        assertThat(timeout.isRetry()).isFalse();
        assertThat(timeout.reason()).isEqualTo(RetryReason.ATTEMPTS_EXHAUSTED);
        assertThat(timeout.releaseKey()).isTrue();
        assertThat(timeout.store()).isFalse();
        assertThat(timeout.deadLetter()).isTrue();
        assertThat(timeout.answerProblem()).contains(Problem.AMBIGUOUS_OUTCOME);

        RetryDecision fiveOhThree = decide(IDEMPOTENT, "POST", 4, status(503));
        assertThat(fiveOhThree.releaseKey()).isTrue();
        assertThat(fiveOhThree.answerProblem()).isEmpty();
        assertThat(fiveOhThree.deadLetter()).isTrue();
    }

    @Test
    void idleTimeoutIsRetriedOnlyWhenListed() {
        assertThat(decide(IDEMPOTENT, "POST", 1, failure(FailureClass.IDLE_TIMEOUT)).reason()).isEqualTo(RetryReason.NOT_RETRYABLE);
        Route r = route(Set.of(Route.TAG_IDEMPOTENT), retryOn("idle-timeout"));
        assertThat(decide(r, "POST", 1, failure(FailureClass.IDLE_TIMEOUT)).spelling()).isEqualTo("idle-timeout");
    }

    // committed responses

    @Test
    void nothingIsRetriedOnceResponseBytesReachedTheClient() {
        FinishedAttempt safe = FinishedAttempt.started(1, failure(FailureClass.IDLE_TIMEOUT));
        RetryDecision d = decideOn(IDEMPOTENT, "GET", safe, deadline, RetryBudgets.unlimited());
        assertThat(d.isRetry()).isFalse();
        assertThat(d.reason()).isEqualTo(RetryReason.RESPONSE_STARTED);
        assertThat(d.releaseKey()).isTrue();

        FinishedAttempt unsafe = FinishedAttempt.started(1, failure(FailureClass.RESET));
        RetryDecision u = decideOn(PLAIN, "POST", unsafe, deadline, RetryBudgets.unlimited());
        assertThat(u.reason()).isEqualTo(RetryReason.RESPONSE_STARTED);
        assertThat(u.store()).isTrue();
        assertThat(u.answerProblem()).contains(Problem.AMBIGUOUS_OUTCOME);
    }

    // deadline

    @Test
    void aFailureAfterTheDeadlineAnswersDeadlineExceeded() {
        deadline = Deadline.after(Duration.ofSeconds(1), ticker);
        ticker.advance(Duration.ofSeconds(1));
        RetryDecision d = decide(IDEMPOTENT, "POST", 1, failure(FailureClass.READ_TIMEOUT));
        assertThat(d.isRetry()).isFalse();
        assertThat(d.reason()).isEqualTo(RetryReason.DEADLINE);
        assertThat(d.answerProblem()).contains(Problem.DEADLINE_EXCEEDED);
        assertThat(d.releaseKey()).isTrue();
        assertThat(d.deadLetter()).isTrue();
    }

    @Test
    void aTimeoutAtTheDeadlineOnAnUnsafeRouteIsStoredAsDeadlineExceeded() {
        deadline = Deadline.after(Duration.ofSeconds(1), ticker);
        ticker.advance(Duration.ofSeconds(2));
        RetryDecision d = decide(PLAIN, "POST", 1, failure(FailureClass.READ_TIMEOUT));
        assertThat(d.reason()).isEqualTo(RetryReason.DEADLINE);
        assertThat(d.store()).isTrue();
        assertThat(d.releaseKey()).isFalse();
        assertThat(d.answerProblem()).contains(Problem.DEADLINE_EXCEEDED);
    }

    @Test
    void aBackoffThatOutlastsTheDeadlineStopsNow() {
        deadline = Deadline.after(Duration.ofMillis(150), ticker);
        RetryDecision failure = decide(PLAIN, "POST", 1, failure(FailureClass.CONNECT_FAILURE));
        assertThat(failure.reason()).isEqualTo(RetryReason.DEADLINE);
        assertThat(failure.answerProblem()).contains(Problem.DEADLINE_EXCEEDED);

        RetryDecision response = decide(IDEMPOTENT, "POST", 1, status(503));
        assertThat(response.reason()).isEqualTo(RetryReason.DEADLINE);
        assertThat(response.answerProblem()).as("a response goes back as it is").isEmpty();
    }

    // budgets

    @Test
    void aRetryNeedsATaskToken() {
        AtomicInteger routeAsks = new AtomicInteger();
        RetryBudgets noTask = RetryBudgets.of(false, () -> routeAsks.incrementAndGet() > 0);
        RetryDecision d = decideOn(PLAIN, "POST", FinishedAttempt.of(1, status(429)), deadline, noTask);
        assertThat(d.isRetry()).isFalse();
        assertThat(d.reason()).isEqualTo(RetryReason.BUDGET_TASK);
        assertThat(d.answerProblem()).as("the last failure is returned").isEmpty();
        assertThat(d.deadLetter()).isTrue();
        assertThat(routeAsks).as("no route token is taken when the task refuses").hasValue(0);
    }

    @Test
    void aRetryNeedsARouteToken() {
        RetryDecision d = decideOn(PLAIN, "POST", FinishedAttempt.of(1, failure(FailureClass.CONNECT_FAILURE)),
                deadline, RetryBudgets.of(true, () -> false));
        assertThat(d.reason()).isEqualTo(RetryReason.BUDGET_ROUTE);
        assertThat(d.answerProblem()).contains(Problem.UPSTREAM_UNREACHABLE);
        assertThat(d.releaseKey()).isTrue();
    }

    @Test
    void theRouteBudgetIsChargedOnlyForRetries() {
        RouteRetryBudget route = new RouteRetryBudget(new RetryBudgetPolicy(0.0, 1, Duration.ofSeconds(1)), ticker);
        RetryBudgets budgets = RetryBudgets.of(null, route);
        decideOn(PLAIN, "POST", FinishedAttempt.of(1, status(200)), deadline, budgets);
        decideOn(PLAIN, "POST", FinishedAttempt.of(1, status(400)), deadline, budgets);
        decideOn(PLAIN, "POST", FinishedAttempt.of(1, status(503)), deadline, budgets);
        assertThat(route.remaining()).isEqualTo(1);
        assertThat(decideOn(PLAIN, "POST", FinishedAttempt.of(1, status(429)), deadline, budgets).isRetry()).isTrue();
        assertThat(route.remaining()).isZero();
        assertThat(decideOn(PLAIN, "POST", FinishedAttempt.of(1, status(429)), deadline, budgets).reason())
                .isEqualTo(RetryReason.BUDGET_ROUTE);
    }

    @Test
    void aSpentTaskDecisionRefuses() {
        TaskBudget task = new TaskBudget(new TaskPolicy("X-Task-Id", 2, Duration.ofHours(1)), clock);
        RetryBudgets budgets = RetryBudgets.of(task.decide(2), new RouteRetryBudget(RetryBudgetPolicy.DEFAULT, ticker));
        assertThat(decideOn(PLAIN, "POST", FinishedAttempt.of(1, status(429)), deadline, budgets).reason())
                .isEqualTo(RetryReason.BUDGET_TASK);
    }

    @Test
    void budgetsAreNotAskedWhenNoRetryWouldHappen() {
        RetryBudgets failing = RetryBudgets.of(true, () -> {
            throw new AssertionError("route budget asked");
        });
        decideOn(PLAIN, "POST", FinishedAttempt.of(4, status(429)), deadline, failing);
        decideOn(PLAIN, "POST", FinishedAttempt.of(1, status(400)), deadline, failing);
        decideOn(PLAIN, "POST", FinishedAttempt.of(1, status(502)), deadline, failing);
    }

    @Test
    void aRetryDecisionCarriesNoTerminalEffects() {
        RetryDecision d = decide(PLAIN, "POST", 1, status(429));
        assertThat(d.store()).isFalse();
        assertThat(d.releaseKey()).isFalse();
        assertThat(d.deadLetter()).isFalse();
        assertThat(d.answerProblem()).isEmpty();
    }

    @Test
    void idempotentMethodsAreThoseOfRfc9110() {
        assertThat(RetryRules.idempotentMethod("POST")).isFalse();
        assertThat(RetryRules.idempotentMethod("PATCH")).isFalse();
        assertThat(RetryRules.idempotentMethod("PUT")).isTrue();
        assertThat(RetryRules.idempotentMethod("delete")).isTrue();
        assertThat(RetryRules.idempotentMethod("GET")).isTrue();
    }

    // the reasons a route's retries can carry, registered as metric series before any traffic

    @Test
    void theDefaultRetryOnCanRetryForTheseReasons() {
        assertThat(RetryRules.retryReasons(RETRY)).containsExactlyInAnyOrder("connect-failure", "reset-before-request",
                "read-timeout", "reset", "429", "502", "503", "504", "retry_after");
    }

    @Test
    void retryReasonsAreExactlyTheReasonsItsRetriesCarry() {
        List<AttemptOutcome> outcomes = new ArrayList<>();
        for (FailureClass f : FailureClass.values()) {
            outcomes.add(failure(f));
        }
        for (int s = 200; s <= 599; s++) {
            outcomes.add(status(s));
            outcomes.add(AttemptOutcome.answered(s, "1"));
        }
        for (RetryPolicy policy : List.of(RETRY, retryOn(), retryOn("reset", "404", "500"),
                retryOn("idle-timeout", "connect-failure", "408", "429"), retryOn("read-timeout", "503"))) {
            Route r = route(Set.of(Route.TAG_IDEMPOTENT), policy);
            Set<String> seen = new TreeSet<>();
            for (AttemptOutcome o : outcomes) {
                RetryDecision d = decide(r, "POST", 1, o);
                if (d.isRetry()) {
                    seen.add(d.spelling());
                }
            }
            assertThat(RetryRules.retryReasons(policy)).as("retryOn %s", policy.retryOn()).isEqualTo(seen);
        }
    }

    private static RetryPolicy retryOn(String... spellings) {
        return new RetryPolicy(4, Set.of(spellings), NO_JITTER, Duration.ofSeconds(60));
    }

    // judged by the dialect (an MCP answer: HTTP 200 whatever the tool did)

    @Test
    void aJudgedUnknownAnswerIsStoredAsItCameAndDeadLetteredWhereARepeatIsNotHarmless() {
        AttemptOutcome internal = AttemptOutcome.judged(200, OutcomeClass.UNKNOWN, "500", "jsonrpc -32603");
        RetryPolicy on500 = new RetryPolicy(3, Set.of("500", "reset"), NO_JITTER, Duration.ofSeconds(60));

        RetryDecision d = rules.decide(on500, false, FinishedAttempt.of(1, internal), deadline, RetryBudgets.unlimited());

        assertThat(d.isRetry()).isFalse();
        assertThat(d.outcome()).isEqualTo(OutcomeClass.UNKNOWN);
        assertThat(d.store()).isTrue();
        assertThat(d.deadLetter()).isTrue();
        assertThat(d.answerProblem()).as("the answer goes back as it came").isEmpty();
        assertThat(d.reason()).isEqualTo(RetryReason.UNSAFE_TO_REPEAT);
    }

    @Test
    void aJudgedUnknownAnswerIsRetriedWhereARepeatIsHarmlessAndRetryOnListsItsWord() {
        AttemptOutcome internal = AttemptOutcome.judged(200, OutcomeClass.UNKNOWN, "500", "jsonrpc -32603");
        RetryPolicy on500 = new RetryPolicy(3, Set.of("500"), NO_JITTER, Duration.ofSeconds(60));
        RetryPolicy without = new RetryPolicy(3, Set.of("200", "503"), NO_JITTER, Duration.ofSeconds(60));

        RetryDecision retried = rules.decide(on500, true, FinishedAttempt.of(1, internal), deadline, RetryBudgets.unlimited());
        RetryDecision notListed = rules.decide(without, true, FinishedAttempt.of(1, internal), deadline, RetryBudgets.unlimited());

        assertThat(retried.isRetry()).isTrue();
        assertThat(retried.spelling()).isEqualTo("500");
        assertThat(notListed.isRetry()).isFalse();
        assertThat(notListed.reason()).isEqualTo(RetryReason.NOT_RETRYABLE);
        assertThat(notListed.releaseKey()).isTrue();
    }

    @Test
    void aJudgedExecutedAnswerIsStoredWhateverItsStatusWouldSay() {
        AttemptOutcome result = AttemptOutcome.judged(200, OutcomeClass.EXECUTED, null, "result");
        RetryDecision d = rules.decide(RETRY, true, FinishedAttempt.of(1, result), deadline, RetryBudgets.unlimited());
        assertThat(d.isRetry()).isFalse();
        assertThat(d.store()).isTrue();
        assertThat(d.reason()).isEqualTo(RetryReason.EXECUTED);
    }

    @Test
    void aJudgedNotExecutedAnswerThatNoWordListsIsHandedBackWithItsKeyReleasedAndNoDeadLetter() {
        AttemptOutcome expired = AttemptOutcome.judged(404, OutcomeClass.NOT_EXECUTED, "404", "session not found");
        RetryDecision d = rules.decide(RETRY, false, FinishedAttempt.of(1, expired), deadline, RetryBudgets.unlimited());
        assertThat(d.isRetry()).isFalse();
        assertThat(d.releaseKey()).isTrue();
        assertThat(d.store()).isFalse();
        assertThat(d.deadLetter()).isFalse();
        assertThat(d.answerProblem()).isEmpty();
    }
}
