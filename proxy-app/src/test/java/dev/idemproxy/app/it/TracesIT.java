package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.after;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.app.telemetry.OtlpCollector;
import dev.idemproxy.app.telemetry.OtlpCollector.Received;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RecordedRequest;
import dev.idemproxy.core.testing.TestUpstream;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Traces on the wire: the real proxy exports to a real OTLP/HTTP receiver ({@link OtlpCollector},
 * which decodes the protobuf), and the tests read what it received: a SERVER span per protected
 * call under the caller's {@code traceparent}, a CLIENT span per try whose context the upstream
 * received, their names, kinds and attributes, a replay's and a conflict's links, MCP
 * {@code tools/call} spans, and no secret anywhere.
 */
@ExtendWith(LeakDetection.class)
class TracesIT {
    static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static final Duration WAIT = Duration.ofSeconds(20);
    static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    static final String CALLER_SPAN = "00f067aa0ba902b7";

    static TestUpstream upstream;
    static OtlpCollector collector;
    static RunningProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
        collector = OtlpCollector.start();
        proxy = RunningProxy.start(""
                + "telemetry: { traces: { endpoint: \"" + collector.endpoint() + "\" } }\n"
                + "secretQueryParams: [sig]\n"
                + "routes:\n"
                + "  - name: tickets\n"
                + "    match: { pathPrefix: /tickets }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    tags: [idempotent]\n"
                + "    idempotency: { enabled: true, onConcurrent: reject }\n"
                + "    retry: { maxAttempts: 3, backoff: { initial: 10ms, max: 10ms, jitter: none } }\n"
                + "  - name: tools\n"
                + "    match: { pathPrefix: /mcp }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    mcp: { enabled: true }\n"
                + "  - name: plain\n"
                + "    match: { pathPrefix: /plain }\n"
                + "    upstream: " + upstream.uri() + "\n");
    }

    @AfterAll
    static void stop() {
        proxy.close();
        collector.close();
        upstream.close();
    }

    static HttpResponse<String> post(String path, Map<String, String> headers, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(proxy.uri(path)).timeout(WAIT).POST(HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(b::header);
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static Received server(String callId, String outcome) {
        return collector.awaitSpan("the SERVER span of " + callId + " (" + outcome + ")", WAIT, s -> s.span().getKind()
                == SpanKind.SPAN_KIND_SERVER && callId.equals(s.attr("idemproxy.call_id")) && outcome.equals(s.attr("idemproxy.outcome")));
    }

    @Test
    void aRetriedCallIsOneServerSpanUnderTheCallersWithAClientSpanPerTryWhoseContextTheUpstreamReceived() throws Exception {
        int before = upstream.requestCount();
        upstream.enqueue(respond(503, "busy"), respond(201, "made"));
        String key = UUID.randomUUID().toString();

        HttpResponse<String> r = post("/tickets/new?sig=s3cret-sig&page=2", Map.of("Idempotency-Key", key,
                "traceparent", "00-" + TRACE + "-" + CALLER_SPAN + "-01", "Authorization", "Bearer s3cret-token"), "{\"n\":1}");

        assertThat(r.statusCode()).isEqualTo(201);
        String callId = r.headers().firstValue("X-Call-Id").orElseThrow();
        Received call = server(callId, "executed");
        assertThat(call.name()).isEqualTo("POST");
        assertThat(call.traceId()).isEqualTo(TRACE);
        assertThat(call.parentSpanId()).as("the caller's span is the parent").isEqualTo(CALLER_SPAN);
        assertThat(call.attr("http.request.method")).isEqualTo("POST");
        assertThat(call.attr("url.path")).isEqualTo("/tickets/new");
        assertThat(call.attr("url.query")).isEqualTo("sig=***&page=2");
        assertThat(call.attr("http.response.status_code")).isEqualTo("201");
        assertThat(call.attr("idemproxy.key_source")).isEqualTo("client");
        assertThat(call.attr("idemproxy.route")).isEqualTo("tickets");
        assertThat(call.attr("idemproxy.attempts")).isEqualTo("2");
        assertThat(call.attr("error.type")).isNull();
        assertThat(call.resource().getAttributesList()).anyMatch(kv -> kv.getKey().equals("service.name")
                && kv.getValue().getStringValue().equals("idemproxy"));

        List<Received> tries = collector.awaitSpans("CLIENT spans under " + call.spanId(), 2, WAIT,
                s -> s.span().getKind() == SpanKind.SPAN_KIND_CLIENT && s.parentSpanId().equals(call.spanId()));
        assertThat(tries).extracting(s -> s.attr("idemproxy.try")).containsExactlyInAnyOrder("1", "2");
        Received first = tries.stream().filter(s -> "1".equals(s.attr("idemproxy.try"))).findFirst().orElseThrow();
        Received second = tries.stream().filter(s -> "2".equals(s.attr("idemproxy.try"))).findFirst().orElseThrow();
        assertThat(first.name()).isEqualTo("POST");
        assertThat(first.traceId()).isEqualTo(TRACE);
        assertThat(first.attr("url.full")).isEqualTo(upstream.uri() + "/tickets/new?sig=***&page=2");
        assertThat(first.attr("server.address")).isEqualTo("127.0.0.1");
        assertThat(first.attr("server.port")).isEqualTo(Integer.toString(upstream.port()));
        assertThat(first.attr("http.response.status_code")).isEqualTo("503");
        assertThat(first.attr("error.type")).isEqualTo("503");
        assertThat(first.attr("idemproxy.try.class")).isEqualTo("unknown");
        assertThat(first.attr("idemproxy.next")).isEqualTo("retry");
        assertThat(first.attr("idemproxy.why")).isEqualTo("backoff");
        assertThat(first.attr("idemproxy.wait_ms")).isEqualTo("10");
        assertThat(first.attr("http.request.resend_count")).isNull();
        assertThat(second.attr("http.response.status_code")).isEqualTo("201");
        assertThat(second.attr("http.request.resend_count")).isEqualTo("1");
        assertThat(second.attr("idemproxy.next")).as("the plain stop: it executed").isNull();
        assertThat(second.attr("idemproxy.try.class")).as("executed, as its 201 says").isNull();
        assertThat(second.attr("error.type")).isNull();

        List<RecordedRequest> seen = upstream.awaitRequests(before + 2, WAIT).subList(before, before + 2);
        assertThat(seen).extracting(s -> s.header("traceparent")).as("each try's own span goes upstream as its parent")
                .containsExactly("00-" + TRACE + "-" + first.spanId() + "-01", "00-" + TRACE + "-" + second.spanId() + "-01");
        assertNoSecretInAnySpan();
    }

    @Test
    void aCallWhoseTriesRanOutIsDeadLetteredWithItsErrorOnTheCallAndTheStopSaidOnItsLastTry() throws Exception {
        upstream.enqueue(respond(503, "busy"), respond(503, "busy"), respond(503, "still busy"));

        HttpResponse<String> r = post("/tickets/busy", Map.of("Idempotency-Key", UUID.randomUUID().toString()), "{}");

        assertThat(r.statusCode()).isEqualTo(503);
        Received call = server(r.headers().firstValue("X-Call-Id").orElseThrow(), "dead-lettered");
        assertThat(call.attr("error.type")).isEqualTo("503");
        assertThat(call.span().getStatus().getCode()).isEqualTo(io.opentelemetry.proto.trace.v1.Status.StatusCode.STATUS_CODE_ERROR);
        assertThat(call.attr("idemproxy.attempts")).isEqualTo("3");
        Received last = collector.awaitSpan("the last try", WAIT, s -> s.parentSpanId().equals(call.spanId())
                && "3".equals(s.attr("idemproxy.try")));
        assertThat(last.attr("idemproxy.next")).isEqualTo("stop");
        assertThat(last.attr("idemproxy.why")).isEqualTo("attempts_exhausted");
        assertThat(last.attr("idemproxy.try.class")).isEqualTo("unknown");
    }

    @Test
    void aReplayIsAShortServerSpanOfItsOwnLinkedToTheOriginalCallsSpan() throws Exception {
        upstream.enqueue(respond(200, "once"));
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post("/tickets/replay", Map.of("Idempotency-Key", key), "{\"n\":2}");
        HttpResponse<String> again = post("/tickets/replay", Map.of("Idempotency-Key", key,
                "traceparent", "00-" + TRACE + "-" + CALLER_SPAN + "-01"), "{\"n\":2}");

        assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        String callId = first.headers().firstValue("X-Call-Id").orElseThrow();
        Received original = server(callId, "executed");
        Received replay = server(callId, "replayed");
        assertThat(replay.spanId()).isNotEqualTo(original.spanId());
        assertThat(replay.traceId()).as("the duplicate's own trace").isEqualTo(TRACE).isNotEqualTo(original.traceId());
        assertThat(replay.linkedSpanIds()).containsExactly(original.spanId());
        assertThat(replay.linkAttr(0, "idemproxy.link")).isEqualTo("replay_of");
        assertThat(replay.attr("http.response.status_code")).isEqualTo("200");
        assertThat(collector.spans()).as("a replay tries nothing upstream")
                .noneMatch(s -> s.parentSpanId().equals(replay.spanId()));
    }

    @Test
    void aConflictIsLinkedToTheCallHoldingTheKey() throws Exception {
        CompletableFuture<Void> release = new CompletableFuture<>();
        int before = upstream.requestCount();
        upstream.enqueue(after(release, respond(200, "slow")));
        String key = UUID.randomUUID().toString();
        CompletableFuture<HttpResponse<String>> holder = CLIENT.sendAsync(HttpRequest.newBuilder(proxy.uri("/tickets/held"))
                .header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                HttpResponse.BodyHandlers.ofString());
        RecordedRequest held = upstream.awaitRequests(before + 1, WAIT).get(before);
        String holderId = held.header("X-Call-Id");

        HttpResponse<String> refused = post("/tickets/held", Map.of("Idempotency-Key", key), "{}");
        release.complete(null);

        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(holder.get(WAIT.toSeconds(), TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        Received original = server(holderId, "executed");
        Received conflict = collector.awaitSpan("the conflict's span", WAIT, s -> "conflict".equals(s.attr("idemproxy.outcome"))
                && s.linkedSpanIds().contains(original.spanId()));
        assertThat(conflict.attr("http.response.status_code")).isEqualTo("409");
        assertThat(conflict.attr("error.type")).as("a 4xx is the client's error, not the server's").isNull();
        assertThat(conflict.linkAttr(0, "idemproxy.link")).isEqualTo("key_holder");
    }

    @Test
    void anMcpToolCallFollowsTheMcpConventionsWithItsMetaTraceparentAsParentAndTheHeadersLinked() throws Exception {
        int before = upstream.requestCount();
        upstream.enqueue(respond(200, Map.of("Content-Type", "application/json"),
                "{\"jsonrpc\":\"2.0\",\"id\":\"a-7\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"T-1\"}],\"isError\":false}}"));
        String metaSpan = "b7ad6b7169203331";
        String body = "{\"jsonrpc\":\"2.0\",\"id\":\"a-7\",\"method\":\"tools/call\",\"params\":{\"name\":\"create_ticket\","
                + "\"arguments\":{\"title\":\"" + UUID.randomUUID() + "\"},\"_meta\":{\"traceparent\":\"00-" + TRACE + "-" + metaSpan
                + "-01\"}}}";

        HttpResponse<String> r = post("/mcp", Map.of("Content-Type", "application/json", "Accept", "application/json, text/event-stream",
                "Mcp-Session-Id", "session-42", "MCP-Protocol-Version", "2025-06-18",
                "traceparent", "00-" + TRACE + "-" + CALLER_SPAN + "-01"), body);

        assertThat(r.statusCode()).isEqualTo(200);
        Received call = server(r.headers().firstValue("X-Call-Id").orElseThrow(), "executed");
        assertThat(call.name()).isEqualTo("tools/call create_ticket");
        assertThat(call.parentSpanId()).as("params._meta.traceparent is the parent").isEqualTo(metaSpan);
        assertThat(call.linkedSpanIds()).as("the HTTP request's context, linked").containsExactly(CALLER_SPAN);
        assertThat(call.attr("mcp.method.name")).isEqualTo("tools/call");
        assertThat(call.attr("gen_ai.tool.name")).isEqualTo("create_ticket");
        assertThat(call.attr("gen_ai.operation.name")).isEqualTo("execute_tool");
        assertThat(call.attr("jsonrpc.request.id")).isEqualTo("a-7");
        assertThat(call.attr("mcp.session.id")).isEqualTo("session-42");
        assertThat(call.attr("idemproxy.key_source")).isEqualTo("derived");
        Received attempt = collector.awaitSpan("the tool call's try", WAIT, s -> s.parentSpanId().equals(call.spanId()));
        assertThat(attempt.span().getKind()).isEqualTo(SpanKind.SPAN_KIND_CLIENT);
        assertThat(attempt.name()).isEqualTo("tools/call create_ticket");
        assertThat(attempt.attr("gen_ai.tool.name")).isEqualTo("create_ticket");
        assertThat(upstream.awaitRequests(before + 1, WAIT).get(before).header("traceparent"))
                .isEqualTo("00-" + TRACE + "-" + attempt.spanId() + "-01");
    }

    @Test
    void passThroughCallsAreNotTracedUnlessConfigured() throws Exception {
        upstream.enqueue(respond(200, "passed"), respond(200, "marker"));
        CLIENT.send(HttpRequest.newBuilder(proxy.uri("/plain/get")).timeout(WAIT).build(), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> marker = post("/tickets/marker", Map.of("Idempotency-Key", UUID.randomUUID().toString()), "{}");

        server(marker.headers().firstValue("X-Call-Id").orElseThrow(), "executed");  // ended after the GET: exported with or after it
        assertThat(collector.spans()).noneMatch(s -> "plain".equals(s.attr("idemproxy.route")));
    }

    @Test
    void aPassThroughCallIsTracedWhenConfiguredAsAServerAndAClientSpanInTheHttpConventions() throws Exception {
        try (RunningProxy passing = RunningProxy.start(""
                + "telemetry: { traces: { endpoint: \"" + collector.endpoint() + "\", passThrough: true } }\n"
                + "routes:\n"
                + "  - name: passing\n"
                + "    match: { pathPrefix: /passing }\n"
                + "    upstream: " + upstream.uri() + "\n")) {
            int before = upstream.requestCount();
            upstream.enqueue(respond(200, "passed"));
            HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(passing.uri("/passing/x?token=s3cret-t")).timeout(WAIT)
                    .header("traceparent", "00-" + TRACE + "-" + CALLER_SPAN + "-01").build(), HttpResponse.BodyHandlers.ofString());

            assertThat(r.body()).isEqualTo("passed");
            Received call = collector.awaitSpan("the pass-through SERVER span", WAIT, s -> "passing".equals(s.attr("idemproxy.route"))
                    && s.span().getKind() == SpanKind.SPAN_KIND_SERVER);
            assertThat(call.name()).isEqualTo("GET");
            assertThat(call.parentSpanId()).isEqualTo(CALLER_SPAN);
            assertThat(call.attr("http.response.status_code")).isEqualTo("200");
            assertThat(call.attr("url.query")).isEqualTo("token=***");
            assertThat(call.attr("idemproxy.outcome")).as("no idempotency, no outcome of its own").isNull();
            Received leg = collector.awaitSpan("its CLIENT span", WAIT, s -> s.parentSpanId().equals(call.spanId()));
            assertThat(leg.span().getKind()).isEqualTo(SpanKind.SPAN_KIND_CLIENT);
            assertThat(leg.attr("url.full")).isEqualTo(upstream.uri() + "/passing/x?token=***");
            assertThat(upstream.awaitRequests(before + 1, WAIT).get(before).header("traceparent"))
                    .isEqualTo("00-" + TRACE + "-" + leg.spanId() + "-01");
            assertNoSecretInAnySpan();
        }
    }

    /** No secret the tests sent (credentials, secret query values) is in any attribute of any span received. */
    static void assertNoSecretInAnySpan() {
        assertThat(collector.spans()).allSatisfy(s -> assertThat(s.span().toString()).doesNotContain("s3cret"));
    }
}
