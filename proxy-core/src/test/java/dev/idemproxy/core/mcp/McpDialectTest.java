package dev.idemproxy.core.mcp;

import dev.idemproxy.core.call.CallPlan;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.call.ReadyAnswer;
import static dev.idemproxy.core.mcp.McpCalls.post;
import static dev.idemproxy.core.mcp.McpCalls.text;
import static dev.idemproxy.core.mcp.McpCalls.toolCall;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.idempotency.RequestPart;
import dev.idemproxy.core.idempotency.Scope;
import dev.idemproxy.core.idempotency.TestRequest;
import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.FailureClass;
import dev.idemproxy.core.retry.OutcomeClass;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The MCP dialect's answers to the engine's questions, for calls planned on a real route. */
class McpDialectTest {
    private static final ByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;
    private final McpCalls mcp = new McpCalls().listed();
    private final McpDialect dialect = mcp.dialect;

    // ---- planning

    @Test
    void aProtectedToolCallClaimsARecordInItsScopeWithTheMcpWindowAndCarriesItsTool() {
        TestRequest request = post(toolCall("7", "create_ticket", "{\"a\":1}"));
        ProxyCall call = mcp.planned(request);
        assertThat(call.plan()).isInstanceOf(CallPlan.Protect.class);
        CallPlan.Protect plan = (CallPlan.Protect) call.plan();

        assertThat(plan.record().route()).isEqualTo("tools");
        assertThat(plan.record().scopeHash()).isEqualTo(Scope.of(List.of(RequestPart.parse("header:Authorization")), request).hash());
        assertThat(plan.record().key()).startsWith("d:");
        assertThat(plan.derivedKey()).isTrue();
        assertThat(plan.window()).isEqualTo(Duration.ofMinutes(5));
        assertThat(plan.retention(Duration.ofHours(1))).as("a derived key: its window").isEqualTo(Duration.ofMinutes(5));
        assertThat(plan.label()).isEqualTo("create_ticket");
        assertThat(dialect.repeatHarmless(call)).isFalse();
        assertThat(dialect.repeatHarmless(mcp.planned(post(toolCall("8", "set_flag", "{}"))))).as("idempotentHint").isTrue();
        assertThat(new McpCalls(Set.of(Route.TAG_IDEMPOTENT)).dialect.repeatHarmless(
                new McpCalls(Set.of(Route.TAG_IDEMPOTENT)).planned(post(toolCall("9", "create_ticket", "{}"))))).isTrue();
    }

    @Test
    void aDlqReplayReRunsItsToolCallUnderItsOriginalRecordAndAnythingElseIsRefused() {
        dev.idemproxy.core.store.RecordKey original = new dev.idemproxy.core.store.RecordKey("tools", "0".repeat(32), "d:abc");
        TestRequest stored = post(toolCall("9", "set_flag", "{\"f\":1}"));
        ProxyCall call = mcp.call("POST");
        CallPlan replayed = dialect.planner(null).planReplay(call, stored, original);
        call.plan(replayed);

        assertThat(replayed).isInstanceOf(CallPlan.Protect.class);
        CallPlan.Protect plan = (CallPlan.Protect) replayed;
        assertThat(plan.record()).isSameAs(original);
        assertThat(plan.derivedKey()).isTrue();
        assertThat(plan.headerValue()).isEqualTo("d:abc");
        assertThat(plan.fingerprint()).isEqualTo(((CallPlan.Protect) mcp.planned(stored).plan()).fingerprint());
        assertThat(plan.label()).isEqualTo("set_flag");
        assertThat(dialect.repeatHarmless(call)).isTrue();
        assertThat(dialect.planner(null).planReplay(mcp.call("POST"), post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"),
                original)).isInstanceOf(CallPlan.Reject.class);
    }

    @Test
    void aClientKeyIsKeptForTheTtlNotTheWindow() {
        CallPlan.Protect plan = (CallPlan.Protect) mcp.planned(post(toolCall("7", "create_ticket", "{}"))
                .withHeader("Idempotency-Key", "k-1")).plan();
        assertThat(plan.record().key()).isEqualTo("c:k-1");
        assertThat(plan.headerValue()).isEqualTo("k-1");
        assertThat(plan.retention(Duration.ofHours(1))).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void everythingButAProtectedToolCallPassesThroughAndOnlyAToolsListIsObserved() {
        CallPlan readOnly = mcp.planned(post(toolCall("1", "search_docs", "{}"))).plan();
        CallPlan list = mcp.planned(post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}")).plan();
        CallPlan init = mcp.planned(post("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}")).plan();
        CallPlan note = mcp.planned(post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")).plan();

        assertThat(List.of(readOnly, list, init, note)).allSatisfy(p -> assertThat(p).isInstanceOf(CallPlan.Pass.class));
        assertThat(readOnly.label()).isEqualTo("search_docs");
        assertThat(((CallPlan.Pass) list).observer()).isInstanceOf(ToolsListObserver.class);
        assertThat(((CallPlan.Pass) readOnly).observer()).isNull();
        assertThat(((CallPlan.Pass) init).observer()).isNull();
    }

    @Test
    void anUnreadableMessageIsAnsweredAtOnceWithItsJsonRpcError() {
        CallPlan plan = mcp.planned(post("{\"id\":1,")).plan();
        assertThat(plan).isInstanceOf(CallPlan.Answer.class);
        ReadyAnswer answer = ((CallPlan.Answer) plan).answer();
        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.contentType()).isEqualTo("application/json");
        assertThat(text(answer.body())).contains("-32700", "urn:idemproxy:problem:bad-request");
        assertThat(answer.reason()).isEqualTo("invalid_message");
    }

    @Test
    void aCancellationOfAProtectedCallInFlightIsHeldBackInItsScopeOnly() {
        ProxyCall inFlight = mcp.planned(post(toolCall("\"a-1\"", "create_ticket", "{}")));
        String cancel = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"\\u0061-1\"}}";

        CallPlan before = mcp.planned(post(cancel)).plan();
        dialect.started(inFlight);
        CallPlan during = mcp.planned(post(cancel)).plan();
        CallPlan otherCaller = mcp.planned(post(cancel).withHeader("Authorization", "Bearer b")).plan();
        dialect.settled(inFlight);
        CallPlan after = mcp.planned(post(cancel)).plan();

        assertThat(before).isInstanceOf(CallPlan.Pass.class);
        assertThat(during).isInstanceOf(CallPlan.Answer.class);
        ReadyAnswer held = ((CallPlan.Answer) during).answer();
        assertThat(held.status()).isEqualTo(202);
        assertThat(held.body()).isEmpty();
        assertThat(held.reason()).isEqualTo("cancel_held");
        assertThat(otherCaller).isInstanceOf(CallPlan.Pass.class);
        assertThat(after).isInstanceOf(CallPlan.Pass.class);
    }

    @Test
    void aSessionsDeleteWaitsForTheSessionsProtectedCallsToSettle() {
        ProxyCall inFlight = mcp.planned(post(toolCall("4", "create_ticket", "{}")).withHeader("Mcp-Session-Id", "s-1"));
        dialect.started(inFlight);
        TestRequest delete = new TestRequest("DELETE", "/mcp", java.util.Map.of(), java.util.Map.of(), new byte[0])
                .withHeader("Authorization", "Bearer a").withHeader("Mcp-Session-Id", "s-1");

        CallPlan.Pass held = (CallPlan.Pass) mcp.planned(delete).plan();
        CallPlan.Pass free = (CallPlan.Pass) mcp.planned(new TestRequest("DELETE", "/mcp", java.util.Map.of(), java.util.Map.of(), new byte[0])
                .withHeader("Authorization", "Bearer a").withHeader("Mcp-Session-Id", "s-2")).plan();

        assertThat(held.after().toCompletableFuture()).isNotDone();
        assertThat(free.after()).isNull();
        dialect.settled(inFlight);
        assertThat(held.after().toCompletableFuture()).isDone();
        assertThat(((CallPlan.Pass) mcp.planned(delete).plan()).after()).as("nothing in flight any more").isNull();
    }

    @Test
    void postsAndASessionsDeleteAreBufferedAndStreamsAreNot() {
        assertThat(dialect.buffers(mcp.call("POST"))).isTrue();
        assertThat(dialect.buffers(mcp.call("GET"))).isFalse();
        assertThat(dialect.buffers(mcp.call("DELETE"))).as("no session: nothing to wait for").isFalse();
        ProxyCall delete = mcp.call("DELETE");
        delete.request().headers().set("Mcp-Session-Id", "s");
        assertThat(dialect.buffers(delete)).isTrue();
        assertThat(dialect.gated(mcp.call("POST"), false)).as("planned even without a store").isTrue();
    }

    // ---- classification

    @Test
    void aTwoHundredIsHeldWholeAndAnythingElseIsClassedAtItsHead() {
        ProxyCall call = mcp.planned(post(toolCall("7", "create_ticket", "{}")));
        assertThat(dialect.holdsAnswer(call, head(200, null))).isTrue();
        assertThat(dialect.holdsAnswer(call, head(503, null))).isFalse();

        AttemptOutcome unavailable = dialect.classify(call, head(503, null));
        AttemptOutcome expired = dialect.classify(call, head(404, null));
        HttpResponse limited = head(429, null);
        limited.headers().set("Retry-After", "2");

        assertThat(unavailable.outcomeClass()).isEqualTo(OutcomeClass.UNKNOWN);
        assertThat(unavailable.listedIn(Set.of("503"))).isTrue();
        assertThat(expired.outcomeClass()).as("the transport refused it: a new session runs it").isEqualTo(OutcomeClass.NOT_EXECUTED);
        assertThat(dialect.classify(call, limited).retryAfter()).isEqualTo("2");
    }

    @Test
    void aHeldAnswerIsJudgedByItsJsonRpcResponse() {
        ProxyCall call = mcp.planned(post(toolCall("7", "create_ticket", "{}")));
        HttpResponse json = head(200, "application/json");

        assertThat(held(call, json, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[]}}").outcomeClass())
                .isEqualTo(OutcomeClass.EXECUTED);
        assertThat(held(call, json, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"isError\":true}}").outcomeClass())
                .isEqualTo(OutcomeClass.EXECUTED);
        assertThat(held(call, json, "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32602,\"message\":\"m\"}}").outcomeClass())
                .isEqualTo(OutcomeClass.EXECUTED);
        AttemptOutcome internal = held(call, json, "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32603,\"message\":\"m\"}}");
        assertThat(internal.outcomeClass()).isEqualTo(OutcomeClass.UNKNOWN);
        assertThat(internal.listedIn(Set.of("500"))).isTrue();
        assertThat(internal.isFailure()).as("an answer, passed on as it came").isFalse();
        assertThat(held(call, json, "")).as("no response in it: cut short").isEqualTo(AttemptOutcome.failed(FailureClass.RESET));
    }

    @Test
    void aHeldStreamIsJudgedByTheResponseItCarriesForTheCall() {
        ProxyCall call = mcp.planned(post(toolCall("7", "create_ticket", "{}")));
        HttpResponse sse = head(200, "text/event-stream");
        String progress = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n";

        assertThat(held(call, sse, progress + "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n").outcomeClass())
                .isEqualTo(OutcomeClass.EXECUTED);
        assertThat(held(call, sse, progress)).isEqualTo(AttemptOutcome.failed(FailureClass.RESET));
        assertThat(held(call, sse, progress + "data: {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}\n\n"))
                .as("another request's response").isEqualTo(AttemptOutcome.failed(FailureClass.RESET));
    }

    // ---- what is stored, and replayed

    @Test
    void onlyTheFinalJsonRpcResponseIsStoredAsJsonWithoutTheSession() {
        ProxyCall call = mcp.planned(post(toolCall("7", "create_ticket", "{}")));
        String result = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"T-1\"}]}}";
        StoredResponse json = new StoredResponse(200, List.of(new StoredHeader("Content-Type", "application/json"),
                new StoredHeader("Mcp-Session-Id", "s-1"), new StoredHeader("X-Other", "1")), bytes(result));
        StoredResponse sse = new StoredResponse(200, List.of(new StoredHeader("content-type", "text/event-stream"),
                new StoredHeader("mcp-session-id", "s-1")), bytes("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n"
                + "id: 9\ndata: " + result + "\n\n"));
        StoredResponse failed = new StoredResponse(502, List.of(new StoredHeader("Mcp-Session-Id", "s-1"),
                new StoredHeader("Content-Type", "text/plain")), bytes("bad gateway"));

        for (StoredResponse captured : List.of(json, sse)) {
            StoredResponse stored = dialect.stored(call, captured);
            assertThat(stored.status()).isEqualTo(200);
            assertThat(stored.headers()).containsExactly(new StoredHeader("content-type", "application/json"));
            assertThat(text(stored.body())).isEqualTo(result);
        }
        assertThat(dialect.stored(call, failed).headers()).containsExactly(new StoredHeader("Content-Type", "text/plain"));
        assertThat(text(dialect.stored(call, failed).body())).isEqualTo("bad gateway");
        assertThat(dialect.stored(call, null)).isNull();
    }

    @Test
    void aDuplicateGetsTheStoredResponseWithItsOwnIdAndNothingElseChanged() {
        StoredResponse stored = new StoredResponse(200, List.of(new StoredHeader("content-type", "application/json")),
                bytes("{\"result\":{\"content\":[{\"text\":\"T-1 \\u00e9\"}]},\"jsonrpc\":\"2.0\",\"id\":7}"));
        ProxyCall duplicate = mcp.planned(post(toolCall("\"retry-2\"", "create_ticket", "{}")));

        withResponse(dialect.replay(ALLOC, duplicate, stored, "c-1", 3), r -> {
            assertThat(r.status().code()).isEqualTo(200);
            assertThat(r.content().toString(StandardCharsets.UTF_8))
                    .isEqualTo("{\"result\":{\"content\":[{\"text\":\"T-1 \\u00e9\"}]},\"jsonrpc\":\"2.0\",\"id\":\"retry-2\"}");
            assertThat(r.headers().get("Content-Type")).isEqualTo("application/json");
            assertThat(r.headers().getInt("Content-Length")).isEqualTo(r.content().readableBytes());
            assertThat(r.headers().get("Idempotent-Replayed")).isEqualTo("true");
            assertThat(r.headers().get("X-Call-Id")).isEqualTo("c-1");
            assertThat(r.headers().get("X-Attempts")).isEqualTo("3");
            assertThat(r.headers().contains("Mcp-Session-Id")).isFalse();
        });
        StoredResponse upstream502 = new StoredResponse(502, List.of(new StoredHeader("Content-Type", "text/plain")), bytes("down"));
        withResponse(dialect.replay(ALLOC, duplicate, upstream502, "c-1", 1), r -> {
            assertThat(r.status().code()).as("not a JSON-RPC response: replayed as it was").isEqualTo(502);
            assertThat(r.content().toString(StandardCharsets.UTF_8)).isEqualTo("down");
        });
    }

    @Test
    void theProxysOwnErrorsForAToolCallAreJsonRpcErrorsWithTheRequestsId() {
        ProxyCall call = mcp.planned(post(toolCall("\"q\"", "create_ticket", "{}")));
        withResponse(dialect.problem(ALLOC, call, Problem.AMBIGUOUS_OUTCOME, "read-timeout", "c-9"), r -> {
            assertThat(r.status().code()).isEqualTo(200);
            assertThat(r.headers().get("Content-Type")).isEqualTo("application/json");
            assertThat(r.content().toString(StandardCharsets.UTF_8)).contains("\"id\":\"q\"", "-32006",
                    "urn:idemproxy:problem:ambiguous-outcome", "\"status\":504", "\"callId\":\"c-9\"");
        });
        StoredResponse stored = dialect.storedProblem(call, Problem.DEADLINE_EXCEEDED, "late", "c-9");
        assertThat(stored.status()).isEqualTo(200);
        assertThat(text(stored.body())).contains("\"id\":\"q\"", "-32007");
        withResponse(dialect.problem(ALLOC, mcp.call("GET"), Problem.NO_ROUTE, "x", null), r -> {
            assertThat(r.status().code()).as("not a tool call: as on any route").isEqualTo(404);
            assertThat(r.headers().get("Content-Type")).isEqualTo("application/problem+json");
        });
    }

    @Test
    void aBodyTooLargeIsAJsonRpcErrorWhenItsIdWasReadAndAPlain413Otherwise() {
        ProxyCall call = mcp.call("POST");
        byte[] idFirst = bytes("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{\"b\":\"xx");
        withResponse(dialect.tooLarge(ALLOC, call, idFirst, "too big"), r -> {
            assertThat(r.status().code()).isEqualTo(200);
            assertThat(r.content().toString(StandardCharsets.UTF_8)).contains("\"id\":5", "-32012", "request-too-large");
        });
        withResponse(dialect.tooLarge(ALLOC, call, new byte[0], "too big"), r -> assertThat(r.status().code()).isEqualTo(413));
    }

    // ---- counted

    @Test
    void toolCallsAndBatchesAreCountedByToolAndOutcomeAndOtherMessagesAreNot() {
        ProxyCall protectedCall = mcp.planned(post(toolCall("1", "create_ticket", "{}")));
        ProxyCall unknownTool = mcp.planned(post(toolCall("2", "brand_new", "{}")));
        ProxyCall readOnly = mcp.planned(post(toolCall("3", "search_docs", "{}")));
        ProxyCall batch = mcp.planned(post("[" + toolCall("4", "create_ticket", "{}") + "]"));
        ProxyCall list = mcp.planned(post("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\"}"));
        ProxyCall invalid = mcp.planned(post("{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}"));

        dialect.finished(protectedCall, CallOutcome.EXECUTED);
        dialect.finished(protectedCall, CallOutcome.REPLAYED);
        dialect.finished(unknownTool, CallOutcome.FAILED);
        dialect.finished(readOnly, CallOutcome.FORWARDED);
        dialect.finished(batch, CallOutcome.FORWARDED);
        dialect.finished(list, CallOutcome.FORWARDED);
        dialect.finished(invalid, CallOutcome.REJECTED);
        dialect.finished(mcp.call("GET"), CallOutcome.FORWARDED);

        assertThat(count("create_ticket", "executed")).isEqualTo(1);
        assertThat(count("create_ticket", "replayed")).isEqualTo(1);
        assertThat(count("other", "failed")).isEqualTo(1);
        assertThat(count("search_docs", "unprotected")).isEqualTo(1);
        assertThat(count("other", "unprotected_batch")).isEqualTo(1);
        assertThat(count("other", "rejected")).isEqualTo(1);
        assertThat(mcp.registry.find(ProxyMetrics.MCP_CALLS).counters()).hasSize(6);
    }

    private double count(String tool, String outcome) {
        var c = mcp.registry.find(ProxyMetrics.MCP_CALLS).tag("route", "tools").tag("tool", tool).tag("outcome", outcome).counter();
        return c == null ? 0 : c.count();
    }

    private AttemptOutcome held(ProxyCall call, HttpResponse head, String body) {
        return dialect.classifyHeld(call, head, bytes(body));
    }

    private static HttpResponse head(int status, String contentType) {
        HttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status));
        if (contentType != null) {
            r.headers().set("Content-Type", contentType);
        }
        return r;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void withResponse(FullHttpResponse r, Consumer<FullHttpResponse> check) {
        try {
            check.accept(r);
        } finally {
            r.release();
        }
    }
}
