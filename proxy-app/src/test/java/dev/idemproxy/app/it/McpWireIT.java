package dev.idemproxy.app.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.app.it.McpServerFixture.Answers;
import dev.idemproxy.app.it.McpServerFixture.Era;
import dev.idemproxy.core.testing.Await;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RawHttp;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An MCP route on the wire: raw JSON-RPC over HTTP to the real proxy in front of the SDK fixture
 * server ({@link McpServerFixture}), asserting bytes, headers, the server's execution counts,
 * {@code /metrics}, {@code /receipts} and {@code /dlq}. Each test starts its own proxy.
 */
@ExtendWith(LeakDetection.class)
class McpWireIT extends McpRouteFixture {
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static final ObjectMapper JSON = new ObjectMapper();
    static final Duration WAIT = Duration.ofSeconds(20);
    static final String SESSION_VERSION = "2025-06-18";

    @Test
    void aDuplicateFromAnotherSessionGetsTheStoredResponseWithItsOwnIdAndNoSession() throws Exception {
        startProxy("");
        URI url = via(Era.SESSION, Answers.JSON);
        String s1 = initialize(url);
        HttpResponse<String> first = post(url, s1, toolCall("7", "create_ticket", "{\"title\":\"wire\"}"));
        HttpResponse<String> duplicate = post(url, initialize(url), toolCall("\"dup-1\"", "create_ticket", "{\"title\":\"wire\"}"));

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("Mcp-Session-Id")).hasValue(s1);
        assertThat(first.body()).contains("Ticket T-1 created: wire", "\"id\":7");
        assertThat(duplicate.statusCode()).isEqualTo(200);
        assertThat(duplicate.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(duplicate.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(duplicate.headers().firstValue("Mcp-Session-Id")).as("the first call's session is not replayed").isEmpty();
        assertThat(duplicate.headers().firstValue("X-Call-Id")).isEqualTo(first.headers().firstValue("X-Call-Id"));
        assertThat(duplicate.body()).isEqualTo(first.body().replace("\"id\":7", "\"id\":\"dup-1\""));
        assertThat(server.executions("create_ticket")).isEqualTo(1);
    }

    @Test
    void anSseAnswerGoesToItsCallerAsItCameAndIsStoredAsItsFinalResponseOnly() throws Exception {
        startProxy("");
        URI url = via(Era.MODERN, Answers.SSE);
        HttpResponse<String> first = postModern(url, 3, "create_ticket", "{\"title\":\"sse\"}", true);
        HttpResponse<String> duplicate = postModern(url, 4, "create_ticket", "{\"title\":\"sse\"}", true);

        assertThat(first.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
        assertThat(first.body()).contains("notifications/progress", "Ticket T-1 created: sse");
        String finalResponse = lastData(first.body());
        assertThat(duplicate.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(duplicate.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(duplicate.body()).doesNotContain("notifications/progress")
                .isEqualTo(finalResponse.replace("\"id\":3", "\"id\":4"));
        assertThat(server.executions("create_ticket")).isEqualTo(1);
    }

    @Test
    void aCancellationOfAProtectedCallInFlightIsAnswered202AndNotForwardedAndOfAnUnprotectedOneIsForwarded() throws Exception {
        startProxy("    idempotency: { waitTimeout: 20s }\n");
        URI url = via(Era.MODERN, Answers.JSON);
        CompletableFuture<HttpResponse<String>> slow = postModernAsync(url, 41, "slow_commit", "{\"delayMs\":1000}", false);
        server.awaitExecutions("slow_commit", 1, WAIT);
        double forwarded = metric("idemproxy_requests_total{outcome=\"forwarded\",route=\"tools\"}");
        HttpResponse<String> cancelled = postNotification(url, cancel("41"));

        assertThat(cancelled.statusCode()).isEqualTo(202);
        assertThat(cancelled.body()).isEmpty();
        assertThat(metric("idemproxy_requests_total{outcome=\"rejected\",route=\"tools\"}")).as("answered by the proxy").isEqualTo(1);
        assertThat(metric("idemproxy_requests_total{outcome=\"forwarded\",route=\"tools\"}")).as("not forwarded").isEqualTo(forwarded);
        assertThat(slow.get(WAIT.toSeconds(), TimeUnit.SECONDS).body()).contains("slow commit 1 done", "\"id\":41");
        HttpResponse<String> retry = postModern(url, 42, "slow_commit", "{\"delayMs\":1000}", false);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).contains("slow commit 1 done", "\"id\":42");

        postModern(url, 50, "tools/list", null, false);
        assertThat(postModern(url, 51, "search_docs", "{\"query\":\"q\"}", false).body()).contains("1: results for q");
        double before = metric("idemproxy_requests_total{outcome=\"forwarded\",route=\"tools\"}");
        postNotification(url, cancel("51"));
        assertThat(metric("idemproxy_requests_total{outcome=\"forwarded\",route=\"tools\"}")).isEqualTo(before + 1);
        assertThat(server.executions("slow_commit")).isEqualTo(1);
    }

    @Test
    void aSessionsDeleteWaitsForItsProtectedCallSoItsAnswerIsNotLost() throws Exception {
        startProxy("");
        URI url = via(Era.SESSION, Answers.SSE);
        String session = initialize(url);
        AtomicLong callDone = new AtomicLong();
        AtomicLong deleteDone = new AtomicLong();
        CompletableFuture<HttpResponse<String>> call = HTTP.sendAsync(sessionPost(url, session,
                toolCall("5", "slow_commit", "{\"delayMs\":800}")).build(), HttpResponse.BodyHandlers.ofString())
                .whenComplete((r, e) -> callDone.set(System.nanoTime()));
        server.awaitExecutions("slow_commit", 1, WAIT);
        CompletableFuture<HttpResponse<String>> delete = HTTP.sendAsync(HttpRequest.newBuilder(url).DELETE()
                .header("Mcp-Session-Id", session).header("MCP-Protocol-Version", SESSION_VERSION).build(),
                HttpResponse.BodyHandlers.ofString()).whenComplete((r, e) -> deleteDone.set(System.nanoTime()));

        assertThat(call.get(WAIT.toSeconds(), TimeUnit.SECONDS).body()).contains("slow commit 1 done");
        assertThat(delete.get(WAIT.toSeconds(), TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(deleteDone.get() - callDone.get()).as("the DELETE answered after the call").isPositive();
    }

    @Test
    void getStreamsAndDeletePassThroughUntouchedAndARefusedCallReleasesItsKey() throws Exception {
        startProxy("");
        URI url = via(Era.SESSION, Answers.SSE);
        String session = initialize(url);
        try (RawHttp stream = RawHttp.connect("127.0.0.1", proxy.port())) {
            stream.write("GET " + url.getPath() + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                    + "Mcp-Session-Id: " + session + "\r\nMCP-Protocol-Version: " + SESSION_VERSION + "\r\n\r\n");
            RawHttp.Response head = stream.readHeadResponse();
            assertThat(head.status()).as("the stream's head came while the stream stays open").isEqualTo(200);
            assertThat(head.header("Content-Type")).startsWith("text/event-stream");

            HttpResponse<String> deleted = HTTP.send(HttpRequest.newBuilder(url).DELETE().header("Mcp-Session-Id", session)
                    .header("MCP-Protocol-Version", SESSION_VERSION).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(deleted.statusCode()).isEqualTo(200);
            assertThat(stream.awaitData(WAIT)).as("the stream's end, written when the server ended the session").isTrue();
        }
        HttpResponse<String> gone = post(url, session, toolCall("6", "create_ticket", "{\"t\":1}"));
        HttpResponse<String> again = post(url, initialize(url), toolCall("7", "create_ticket", "{\"t\":1}"));

        assertThat(gone.statusCode()).as("the server's answer for a session it ended").isEqualTo(404);
        assertThat(gone.body()).doesNotContain("urn:idemproxy");
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.headers().firstValue("Idempotent-Replayed")).as("not executed: the key was released").isEmpty();
        assertThat(server.executions("create_ticket")).isEqualTo(1);
    }

    @Test
    void closingTheStreamOfAProtectedCallDoesNotCancelIt() throws Exception {
        startProxy("    idempotency: { waitTimeout: 20s }\n");
        URI url = via(Era.MODERN, Answers.SSE);
        byte[] body = modernBody(1, "tools/call", "\"name\":\"slow_commit\",\"arguments\":{\"delayMs\":800},", "");
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write(("POST " + url.getPath() + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n"
                    + "Mcp-Name: slow_commit\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(UTF_8));
            raw.write(body);
            server.awaitExecutions("slow_commit", 1, WAIT);
        }
        HttpResponse<String> retry = postModern(url, 2, "slow_commit", "{\"delayMs\":800}", false);

        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).contains("slow commit 1 done", "\"id\":2");
        assertThat(server.executions("slow_commit")).isEqualTo(1);
    }

    @Test
    void receiptsCarryTheToolAndAnInternalErrorIsAFailedCallWithADeadLetter() throws Exception {
        startProxy("");
        URI url = via(Era.MODERN, Answers.JSON);
        HttpResponse<String> created = postModern(url, 1, "create_ticket", "{\"r\":1}", false);
        HttpResponse<String> failed = postModern(url, 2, "fail_internal", "{}", false);
        HttpResponse<String> failedAgain = postModern(url, 3, "fail_internal", "{}", false);

        JsonNode ok = receipt(created.headers().firstValue("X-Call-Id").orElseThrow());
        JsonNode bad = receipt(failed.headers().firstValue("X-Call-Id").orElseThrow());
        assertThat(ok.path("tool").asText()).isEqualTo("create_ticket");
        assertThat(ok.path("status").asText()).isEqualTo("SUCCESS");
        assertThat(bad.path("tool").asText()).isEqualTo("fail_internal");
        assertThat(bad.path("status").asText()).isEqualTo("FAILED");
        assertThat(failed.body()).contains("-32603", "\"id\":2");
        assertThat(failedAgain.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(failedAgain.body()).as("stored as it came, not as executed").contains("-32603", "\"id\":3");
        JsonNode dlq = Await.value("the dead letter", WAIT, () -> JSON.readTree(admin("/dlq")), d -> d.path("entries").size() == 1);
        assertThat(dlq.at("/entries/0/route").asText()).isEqualTo("tools");
        assertThat(server.executions("fail_internal")).isEqualTo(1);
    }

    /**
     * A tool call answered -32603 is dead-lettered; its replay through the admin API executes the
     * tool again under the same call id and, failing again, leaves one entry for the call: the
     * replay's (a JSON-RPC error comes over HTTP 200, so the old entry goes and the re-run's own
     * stays, never none). An agent's duplicate then gets the replay's stored answer with its own id.
     */
    @Test
    void aDeadLetteredToolCallIsReplayedAsItselfAndStaysDeadLetteredWhileItFails() throws Exception {
        startProxy("");
        URI url = via(Era.MODERN, Answers.JSON);
        HttpResponse<String> failed = postModern(url, 7, "fail_internal", "{\"n\":1}", false);
        assertThat(failed.body()).contains("-32603", "\"id\":7");
        String callId = failed.headers().firstValue("X-Call-Id").orElseThrow();
        JsonNode entry = Await.value("the dead letter", WAIT, () -> JSON.readTree(admin("/dlq")),
                d -> d.path("entries").size() == 1).at("/entries/0");
        assertThat(entry.path("callId").asText()).isEqualTo(callId);
        assertThat(admin("/dlq/" + entry.path("id").asText())).contains("fail_internal", "Mcp-Method");

        JsonNode replay = JSON.readTree(adminPost("/dlq/" + entry.path("id").asText() + "/replay"));
        assertThat(replay.path("status").asInt()).isEqualTo(200);
        assertThat(replay.path("callId").asText()).isEqualTo(callId);
        assertThat(server.executions("fail_internal")).as("the replay ran the tool again").isEqualTo(2);
        JsonNode after = Await.value("the replay's own dead letter", WAIT, () -> JSON.readTree(admin("/dlq")),
                d -> d.path("entries").size() == 1 && !d.at("/entries/0/id").asText().equals(entry.path("id").asText()));
        assertThat(after.at("/entries/0/callId").asText()).isEqualTo(callId);
        assertThat(after.at("/entries/0/route").asText()).isEqualTo("tools");

        HttpResponse<String> duplicate = postModern(url, 8, "fail_internal", "{\"n\":1}", false);
        assertThat(duplicate.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(duplicate.body()).contains("-32603", "\"id\":8");
        assertThat(server.executions("fail_internal")).isEqualTo(2);
    }

    @Test
    void aDuplicateOfACallInFlightOnARouteThatRejectsGetsAJsonRpcKeyInFlightError() throws Exception {
        startProxy("    idempotency: { onConcurrent: reject }\n");
        URI url = via(Era.MODERN, Answers.JSON);
        CompletableFuture<HttpResponse<String>> slow = postModernAsync(url, 1, "slow_commit", "{\"delayMs\":800}", false);
        server.awaitExecutions("slow_commit", 1, WAIT);
        HttpResponse<String> duplicate = postModern(url, 2, "slow_commit", "{\"delayMs\":800}", false);

        assertThat(duplicate.statusCode()).isEqualTo(200);
        JsonNode error = JSON.readTree(duplicate.body());
        assertThat(error.path("id").asInt()).isEqualTo(2);
        assertThat(error.at("/error/code").asInt()).isEqualTo(-32003);
        assertThat(error.at("/error/data/type").asText()).isEqualTo("urn:idemproxy:problem:key-in-flight");
        assertThat(error.at("/error/data/status").asInt()).isEqualTo(409);
        assertThat(slow.get(WAIT.toSeconds(), TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }

    @Test
    void unreadableCallsMismatchedHeadersAndBodiesTooLargeAreAnsweredWithoutReachingTheServer() throws Exception {
        startProxy("    idempotency: { maxRequestBody: 1KiB }\n");
        URI url = via(Era.MODERN, Answers.JSON);
        HttpResponse<String> broken = HTTP.send(HttpRequest.newBuilder(url).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"id\":1,")).build(), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> mismatch = HTTP.send(modernRequest(url, modernBody(2, "tools/call",
                "\"name\":\"create_ticket\",\"arguments\":{},", ""), "tools/call", "search_docs").build(), HttpResponse.BodyHandlers.ofString());
        String big = "{\"jsonrpc\":\"2.0\",\"id\":\"big-1\",\"method\":\"tools/call\",\"params\":{\"name\":\"create_ticket\","
                + "\"arguments\":{\"blob\":\"" + "x".repeat(4000) + "\"}}}";
        HttpResponse<String> chunked = HTTP.send(HttpRequest.newBuilder(url).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big.getBytes(UTF_8)))).build(),
                HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> declared = HTTP.send(HttpRequest.newBuilder(url).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(big)).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(broken.statusCode()).isEqualTo(400);
        assertThat(broken.body()).contains("-32700", "urn:idemproxy:problem:bad-request");
        assertThat(mismatch.statusCode()).isEqualTo(400);
        assertThat(mismatch.body()).contains("\"id\":2", "-32020");
        assertThat(chunked.statusCode()).as("its id was read before the limit").isEqualTo(200);
        assertThat(chunked.body()).contains("\"id\":\"big-1\"", "-32012", "request-too-large");
        assertThat(declared.statusCode()).as("refused before a byte of it was read").isEqualTo(413);
        assertThat(JSON.readTree(server.countsJson()).size()).isZero();
    }

    @Test
    void aBatchPassesThroughUnprotectedAndIsCounted() throws Exception {
        startProxy("");
        URI url = via(Era.SESSION, Answers.JSON);
        String session = initialize(url);
        HttpResponse<String> batch = post(url, session, "[" + toolCall("61", "create_ticket", "{}") + ","
                + toolCall("62", "create_ticket", "{}") + "]");

        assertThat(batch.body()).as("the server's own answer").doesNotContain("urn:idemproxy");
        assertThat(batch.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(metric("idemproxy_mcp_calls_total{outcome=\"unprotected_batch\",route=\"tools\",tool=\"other\"}")).isEqualTo(1);
    }

    // ---- the session-based generation, by hand

    String initialize(URI url) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(url).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
                        + "\"protocolVersion\":\"" + SESSION_VERSION + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("initialize: %s", r.body()).isEqualTo(200);
        String session = r.headers().firstValue("Mcp-Session-Id").orElseThrow();
        HttpResponse<String> ready = post(url, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        assertThat(ready.statusCode()).isEqualTo(202);
        return session;
    }

    static HttpRequest.Builder sessionPost(URI url, String session, String body) {
        return HttpRequest.newBuilder(url).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream").header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", SESSION_VERSION).POST(HttpRequest.BodyPublishers.ofString(body));
    }

    static HttpResponse<String> post(URI url, String session, String body) throws Exception {
        return HTTP.send(sessionPost(url, session, body).build(), HttpResponse.BodyHandlers.ofString());
    }

    static String toolCall(String id, String tool, String args) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":" + args + "}}";
    }

    static String cancel(String requestId) {
        return "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":" + requestId
                + ",\"reason\":\"timed out\"}}";
    }

    // ---- the sessionless generation (2026-07-28), by hand

    /** A request's body; {@code params} ends where {@code _meta} begins, {@code meta} is more of {@code _meta}. */
    static byte[] modernBody(int id, String method, String params, String meta) {
        return ("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":{" + params + "\"_meta\":{" + meta
                + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"raw\",\"version\":\"1\"},"
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}").getBytes(UTF_8);
    }

    static HttpRequest.Builder modernRequest(URI url, byte[] body, String method, String name) {
        HttpRequest.Builder b = HttpRequest.newBuilder(url).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream").header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Method", method).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        return name == null ? b : b.header("Mcp-Name", name);
    }

    /** A tools/call of {@code tool} (or, with {@code tool} "tools/list", a list); {@code progress} asks for progress. */
    static HttpResponse<String> postModern(URI url, int id, String tool, String args, boolean progress) throws Exception {
        return postModernAsync(url, id, tool, args, progress).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    static CompletableFuture<HttpResponse<String>> postModernAsync(URI url, int id, String tool, String args, boolean progress) {
        byte[] body = tool.equals("tools/list") ? modernBody(id, "tools/list", "", "")
                : modernBody(id, "tools/call", "\"name\":\"" + tool + "\",\"arguments\":" + args + ",",
                        progress ? "\"progressToken\":" + id + "," : "");
        return HTTP.sendAsync(modernRequest(url, body, tool.equals("tools/list") ? "tools/list" : "tools/call",
                tool.equals("tools/list") ? null : tool).build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> postNotification(URI url, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(url).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream").header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Method", "notifications/cancelled").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The data of the stream's last event. */
    static String lastData(String sse) {
        String data = null;
        for (String line : sse.split("\r?\n")) {
            if (line.startsWith("data: ")) {
                data = line.substring(6);
            }
        }
        return data;
    }

    // ---- the admin API

    JsonNode receipt(String callId) throws Exception {
        return Await.value("the receipt of " + callId, WAIT, () -> JSON.readTree(admin("/receipts/" + callId)),
                r -> !"PROCESSING".equals(r.path("status").asText()));
    }

    String admin(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(proxy.admin(path)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    String adminPost(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(proxy.admin(path)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    double metric(String series) throws Exception {
        return metric(proxy, series);
    }

    /** The value of one series of the proxy's {@code /metrics}, 0 when absent. */
    static double metric(RunningProxy proxy, String series) throws Exception {
        String text = HTTP.send(HttpRequest.newBuilder(proxy.admin("/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
        for (String line : text.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        return 0;
    }
}
