package dev.idemproxy.core.call;

import static dev.idemproxy.core.call.CallRig.answer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.retry.BackoffPolicy;
import dev.idemproxy.core.retry.Jitter;
import dev.idemproxy.core.retry.RetryPolicy;
import dev.idemproxy.core.retry.TaskPolicy;
import dev.idemproxy.core.route.ReceiptPolicy;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.StorePolicy;
import dev.idemproxy.core.testing.LeakDetection;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The attempts' moves ({@link ForwardingPhase}), each driven by hand on the rig: connecting,
 * the answer's head and its decision, the task's token, the backoff, an answer kept whole, the
 * receipt check, the stream, and how each ends.
 */
@ExtendWith({LeakDetection.class, TransitionCheck.class})
class ForwardingTransitionsTest {
    static final String TASK = "task-1";
    static final ReceiptPolicy RECEIPT = new ReceiptPolicy("http://tickets.internal/receipts/{callId}", "/status", "/result");

    CallRig rig = new CallRig(StorePolicy.OnUnavailable.REJECT, new TaskPolicy("X-Task-Id", 1, Duration.ofHours(1)));
    final Route idempotent = CallRig.route(CallRig.retries(), Set.of(Route.TAG_IDEMPOTENT), null);
    final Route post = CallRig.route(CallRig.retries(), Set.of(), null);
    final Route withReceipt = CallRig.route(CallRig.retries(), Set.of(), RECEIPT);
    final Route once = CallRig.route(new RetryPolicy(1, Set.of("connect-failure"),
            new BackoffPolicy(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, Jitter.parse("none")), Duration.ofSeconds(60)),
            Set.of(), null);

    @Test
    @Transition("STARTING->CONNECTING")
    @Transition("CONNECTING->AWAITING_HEAD")
    @Transition("AWAITING_HEAD->STREAMING")
    @Transition("STREAMING->SETTLED")
    void anAnswerStreamsToTheClientAsItComesAndItsLastPieceSettlesTheCall() {
        ProtectedCall call = start(rig.recorded(post, "k-1"));
        RigUpstreams.Conn up = rig.upstreams.connect();
        up.answer("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n");
        assertThat(rig.client.writes).containsExactly("head 200", "content 5");
        assertThat(call.phase()).isEqualTo(CallPhase.FORWARDING);
        up.answer("0\r\n\r\n");
        assertThat(call.phase()).isEqualTo(CallPhase.ANSWERED);
        assertThat(rig.client.writes).containsExactly("head 200", "content 5", "last");
    }

    @Test
    @Transition("AWAITING_HEAD->BACKING_OFF")
    @Transition("BACKING_OFF->CONNECTING")
    void a503OnAnIdempotentRouteIsRetriedAfterItsBackoffWithTheSameKeyAndCallId() {
        ProtectedCall call = start(rig.recorded(idempotent, "k-2"));
        RigUpstreams.Conn first = rig.upstreams.connect();
        String sent = first.request();
        first.answer(answer(503, "{}"));
        assertThat(rig.client.writes).as("a retried answer never reaches the client").isEmpty();
        rig.advance(Duration.ofMillis(99));
        assertThat(rig.upstreams.asked()).isZero();
        rig.advance(Duration.ofMillis(1));
        RigUpstreams.Conn second = rig.upstreams.connect();
        String again = second.request();
        assertThat(again).contains("X-Attempt: 2", "Idempotency-Key: k-2", callIdOf(sent));
        second.answer(answer(201, "{}"));
        assertThat(call.phase()).isEqualTo(CallPhase.ANSWERED);
        assertThat(rig.client.lastHead.headers().get("X-Attempts")).isEqualTo("2");
    }

    @Test
    @Transition("CONNECTING->BACKING_OFF")
    void aConnectFailureIsRetried() {
        start(rig.recorded(post, "k-3"));
        rig.upstreams.refuse();
        rig.advance(Duration.ofMillis(100));
        assertThat(rig.upstreams.asked()).isEqualTo(1);
    }

    @Test
    @Transition("CONNECTING->SETTLED")
    void aConnectFailureWithNoAttemptLeftAnswers502() {
        ProtectedCall call = start(rig.recorded(once, "k-4"));
        rig.upstreams.refuse();
        assertThat(call.phase()).isEqualTo(CallPhase.ANSWERED);
        assertThat(rig.client.writes).containsExactly("whole 502");
    }

    @Test
    @Transition("STARTING->READING_BUDGET")
    @Transition("READING_BUDGET->CONNECTING")
    @Transition("AWAITING_HEAD->TAKING_TOKEN")
    @Transition("TAKING_TOKEN->BACKING_OFF")
    void aCallOfATaskReadsItsBudgetFirstAndTakesATokenForEachRetry() {
        start(rig.recorded(idempotent, "k-5", Map.of("X-Task-Id", TASK)));
        rig.upstreams.connect().answer(answer(503, "{}"));
        assertThat(rig.services.taskBudgets().peek(TASK).toCompletableFuture().join().remaining()).as("the token was taken").isZero();
        rig.advance(Duration.ofMillis(100));
        rig.upstreams.connect().answer(answer(200, "{}"));
        assertThat(rig.client.lastHead.headers().get("X-Retry-Budget-Remaining")).isEqualTo("0");
    }

    @Test
    @Transition("TAKING_TOKEN->STREAMING")
    void aRetryWhoseTokenAnotherCallTookAnswersTheHeldAnswer() {
        start(rig.recorded(idempotent, "k-6", Map.of("X-Task-Id", TASK)));
        RigUpstreams.Conn up = rig.upstreams.connect();
        rig.services.taskBudgets().tryAcquire(TASK);  // another call takes the task's one retry meanwhile
        up.answer(answer(503, "{\"busy\":true}"));
        assertThat(rig.client.writes).containsExactly("head 503", "last");
        assertThat(rig.client.body).hasToString("{\"busy\":true}");
    }

    @Test
    @Transition("CONNECTING->TAKING_TOKEN")
    @Transition("TAKING_TOKEN->SETTLED")
    void aConnectFailureWhoseRetryHasNoTokenLeftAnswers502() {
        start(rig.recorded(post, "k-7", Map.of("X-Task-Id", TASK)));
        rig.services.taskBudgets().tryAcquire(TASK);
        rig.upstreams.refuse();
        assertThat(rig.client.writes).containsExactly("whole 502");
    }

    @Test
    @Transition("AWAITING_HEAD->SETTLED")
    void aPostThatTimesOutIsNotRetriedAndAnswers504AmbiguousOutcome() {
        ProtectedCall call = start(rig.recorded(post, "k-8"));
        rig.upstreams.connect();
        rig.advance(Duration.ofSeconds(10));  // the route's perTry
        assertThat(call.phase()).isEqualTo(CallPhase.ANSWERED);
        assertThat(rig.client.writes).containsExactly("whole 504");
        assertThat(rig.client.body).contains("ambiguous-outcome");
    }

    @Test
    @Transition("STARTING->SETTLED")
    void aDeadlineThatExpiredBeforeTheFirstAttemptAnswers504() {
        ProtectedCall call = start(rig.recorded(post, "k-9", Map.of("X-Request-Timeout-Ms", "0")));
        assertThat(call.phase()).isEqualTo(CallPhase.ANSWERED);
        assertThat(rig.client.body).contains("deadline-exceeded");
        assertThat(rig.upstreams.asked()).isZero();
    }

    @Test
    @Transition("READING_BUDGET->SETTLED")
    void aDeadlineThatExpiredWhileTheBudgetWasReadAnswers504() {
        start(rig.recorded(post, "k-10", Map.of("X-Request-Timeout-Ms", "0", "X-Task-Id", TASK)));
        assertThat(rig.client.body).contains("deadline-exceeded");
    }

    @Test
    @Transition("BACKING_OFF->SETTLED")
    void aDeadlineThatExpiresDuringTheBackoffEndsTheCall() {
        start(rig.recorded(idempotent, "k-11", Map.of("X-Request-Timeout-Ms", "150")));
        rig.upstreams.connect().answer(answer(503, "{}"));
        rig.advance(Duration.ofMillis(200));
        assertThat(rig.client.body).contains("deadline-exceeded");
        assertThat(rig.upstreams.asked()).isZero();
    }

    @Test
    @Transition("AWAITING_HEAD->HOLDING")
    @Transition("HOLDING->CHECKING_RECEIPT")
    @Transition("CHECKING_RECEIPT->BACKING_OFF")
    void anUnknown503IsKeptWholeWhileItsReceiptIsCheckedAndNotFoundMakesItsRetrySafe() {
        start(rig.recorded(withReceipt, "k-12"));
        RigUpstreams.Conn up = rig.upstreams.connect().answer("HTTP/1.1 503 X\r\ncontent-length: 4\r\n\r\nbu");
        assertThat(rig.upstreams.asked()).as("the check waits for the whole answer").isZero();
        up.answer("sy");
        RigUpstreams.Conn receipt = rig.upstreams.connect();
        assertThat(receipt.request()).startsWith("GET /receipts/call-1 ");
        receipt.answer(answer(200, "{\"status\":\"NOT_FOUND\"}"));
        rig.advance(Duration.ofMillis(100));
        assertThat(rig.upstreams.connect().request()).contains("X-Attempt: 2");
    }

    @Test
    @Transition("CHECKING_RECEIPT->TAKING_TOKEN")
    void aRetryAfterTheReceiptSaidNotFoundTakesTheTasksToken() {
        start(rig.recorded(withReceipt, "k-13", Map.of("X-Task-Id", TASK)));
        rig.upstreams.connect().answer(answer(503, "busy"));
        rig.upstreams.connect().answer(answer(200, "{\"status\":\"NOT_FOUND\"}"));
        assertThat(rig.services.taskBudgets().peek(TASK).toCompletableFuture().join().remaining()).isZero();
    }

    @Test
    @Transition("AWAITING_HEAD->CHECKING_RECEIPT")
    @Transition("CHECKING_RECEIPT->SETTLED")
    void aReadTimeoutIsCheckedWithTheReceiptAndSuccessAnswersFromItsResult() {
        ProtectedCall call = start(rig.recorded(withReceipt, "k-14"));
        rig.upstreams.connect();
        rig.advance(Duration.ofSeconds(10));
        rig.upstreams.connect().answer(answer(200, "{\"status\":\"SUCCESS\",\"result\":{\"ticket\":\"T-14\"}}"));
        assertThat(call.phase()).isEqualTo(CallPhase.ANSWERED);
        assertThat(rig.client.writes).containsExactly("whole 200");
        assertThat(rig.client.body).hasToString("{\"ticket\":\"T-14\"}");
    }

    @Test
    @Transition("STARTING->CHECKING_RECEIPT")
    @Transition("CHECKING_RECEIPT->CONNECTING")
    void aCallThatTookOverALapsedClaimAsksAboutItsPredecessorFirst() {
        ProtectedCall call = rig.recorded(withReceipt, "k-15");
        lapsedClaimOf("call-before");
        start(call);
        RigUpstreams.Conn receipt = rig.upstreams.connect();
        assertThat(receipt.request()).startsWith("GET /receipts/call-before ");
        receipt.answer(answer(200, "{\"status\":\"NOT_FOUND\"}"));
        assertThat(rig.upstreams.connect().request()).startsWith("POST /tickets");
    }

    /** Takeovers chained (leases lapsing one after another): every earlier owner is asked about, oldest first, before the call runs. */
    @Test
    void aCallThatTookOverAChainOfLapsedClaimsAsksAboutEveryPredecessorBeforeItRuns() {
        ProtectedCall call = rig.recorded(withReceipt, "k-17");
        lapsedClaimOf("call-a");
        lapsedClaimOf("call-b");
        start(call);
        RigUpstreams.Conn first = rig.upstreams.connect();
        assertThat(first.request()).startsWith("GET /receipts/call-a ");
        first.answer(answer(200, "{\"status\":\"NOT_FOUND\"}"));
        RigUpstreams.Conn second = rig.upstreams.connect();
        assertThat(second.request()).as("NOT_FOUND about the first is not enough").startsWith("GET /receipts/call-b ");
        second.answer(answer(200, "{\"status\":\"NOT_FOUND\"}"));
        assertThat(rig.upstreams.connect().request()).startsWith("POST /tickets");
        assertThat(call.phase()).isEqualTo(CallPhase.FORWARDING);
    }

    /** The chain's first owner ran (its receipt says SUCCESS): the call answers from that receipt and never runs again. */
    @Test
    void aCallThatTookOverAChainWhoseFirstOwnerRanAnswersFromItsReceipt() {
        ProtectedCall call = rig.recorded(withReceipt, "k-18");
        lapsedClaimOf("call-a");
        lapsedClaimOf("call-b");
        start(call);
        rig.upstreams.connect().answer(answer(200, "{\"status\":\"SUCCESS\",\"result\":{\"ticket\":\"T-A\"}}"));
        rig.run();
        assertThat(rig.upstreams.asked()).as("no further connection asked for: call-b is not asked about, nothing runs").isZero();
        assertThat(rig.client.body.toString()).contains("T-A");
        assertThat(call.phase()).isIn(CallPhase.RECORDING, CallPhase.ANSWERED);
    }

    @Test
    @Transition("CHECKING_RECEIPT->READING_BUDGET")
    void aTakenOverCallOfATaskReadsItsBudgetOnceItsPredecessorWasNotFound() {
        ProtectedCall call = rig.recorded(withReceipt, "k-16", Map.of("X-Task-Id", TASK));
        lapsedClaimOf("call-before");
        start(call);
        rig.upstreams.connect().answer(answer(200, "{\"status\":\"NOT_FOUND\"}"));
        assertThat(rig.upstreams.asked()).isEqualTo(1);
    }

    @Test
    @Transition("HOLDING->SETTLED")
    void anMcpAnswerIsKeptWholeAndJudgedByItsJsonRpcResponse() {
        Route mcp = CallRig.mcpRoute(CallRig.retries(), Set.of());
        ProtectedCall call = start(rig.recorded(mcp, null, Map.of(), CallRig.toolCall(1), rig.client));
        rig.upstreams.connect().answer(answer(200, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}"));
        assertThat(call.phase()).isEqualTo(CallPhase.ANSWERED);
        assertThat(rig.client.writes).containsExactly("head 200", "last");
    }

    @Test
    @Transition("HOLDING->BACKING_OFF")
    void anMcpInternalErrorOnAnIdempotentRouteIsRetried() {
        Route mcp = CallRig.mcpRoute(CallRig.retries(), Set.of(Route.TAG_IDEMPOTENT));
        start(rig.recorded(mcp, null, Map.of(), CallRig.toolCall(2), rig.client));
        rig.upstreams.connect().answer(answer(200, "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32603,\"message\":\"x\"}}"));
        rig.advance(Duration.ofMillis(100));
        assertThat(rig.upstreams.asked()).isEqualTo(1);
    }

    @Test
    @Transition("HOLDING->TAKING_TOKEN")
    void anMcpRetryOfATaskTakesItsToken() {
        Route mcp = CallRig.mcpRoute(CallRig.retries(), Set.of(Route.TAG_IDEMPOTENT));
        start(rig.recorded(mcp, null, Map.of("X-Task-Id", TASK), CallRig.toolCall(3), rig.client));
        rig.upstreams.connect().answer(answer(200, "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32603,\"message\":\"x\"}}"));
        assertThat(rig.services.taskBudgets().peek(TASK).toCompletableFuture().join().remaining()).isZero();
    }

    @Test
    @Transition("HOLDING->STREAMING")
    void anMcpAnswerTooLargeToJudgeGoesOnUnjudgedAsItComes() {
        Route mcp = CallRig.mcpRoute(CallRig.retries(), Set.of());
        ProtectedCall call = start(rig.recorded(mcp, null, Map.of(), CallRig.toolCall(4), rig.client));
        RigUpstreams.Conn up = rig.upstreams.connect();
        up.answer("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n");
        String chunk = "x".repeat(40_000);
        up.answer(Integer.toHexString(chunk.length()) + "\r\n" + chunk + "\r\n");
        up.answer(Integer.toHexString(chunk.length()) + "\r\n" + chunk + "\r\n");  // past the route's 64 KiB
        assertThat(rig.client.writes).startsWith("head 200");
        up.answer("0\r\n\r\n");
        assertThat(call.phase()).isEqualTo(CallPhase.ANSWERED);
    }

    private ProtectedCall start(ProtectedCall call) {
        call.start();
        rig.run();
        return call;
    }

    /** The record of the last call planned, claimed (or taken over) by {@code callId} in another process whose lease then lapsed. */
    private void lapsedClaimOf(String callId) {
        rig.memory.records().claim(rig.lastPlan.record(), rig.lastPlan.fingerprint(), "owner-of-" + callId, Duration.ofSeconds(1),
                new ClaimContext(callId, Duration.ofHours(1))).toCompletableFuture().join();
        rig.advance(Duration.ofSeconds(2));
    }

    private static String callIdOf(String request) {
        int at = request.indexOf("X-Call-Id: ");
        return request.substring(at, request.indexOf('\r', at));
    }
}
