package dev.idemproxy.app.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.app.it.McpServerFixture.Answers;
import dev.idemproxy.app.it.McpServerFixture.Era;
import dev.idemproxy.core.mcp.JsonRpcResponse;
import dev.idemproxy.core.mcp.McpMessage;
import dev.idemproxy.core.mcp.McpMessageReader;
import dev.idemproxy.core.mcp.McpOutcome;
import dev.idemproxy.core.mcp.McpOutcomes;
import dev.idemproxy.core.mcp.McpReplay;
import dev.idemproxy.core.mcp.SseResponseCapture;
import dev.idemproxy.core.mcp.ToolCatalogue;
import dev.idemproxy.core.retry.OutcomeClass;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The MCP fixtures work, talked to directly (no proxy: {@link McpProxyIT} puts the proxy between them): every tool on both protocol
 * generations and both answer styles through the official SDK client, executions counted, and
 * the MCP dialect's parts read what the real SDK server writes on the wire.
 */
class McpFixtureIT {
    private static final Duration CALL = Duration.ofSeconds(10);
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static McpServerFixture server;
    private static McpClientDriver agent;

    @BeforeAll
    static void start() throws Exception {
        server = McpServerFixture.start();
        agent = McpClientDriver.start();
    }

    @AfterAll
    static void stop() {
        if (agent != null) {
            agent.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void resetCounts() throws Exception {
        server.reset();
    }

    @Test
    void everyAnsweringToolWorksOnBothGenerationsAndBothAnswerStyles() throws Exception {
        int round = 0;
        for (Era era : Era.values()) {
            for (Answers answers : Answers.values()) {
                round++;
                URI url = server.endpoint(era, answers);
                JsonNode ticket = agent.call(url, era, "create_ticket", "{\"title\":\"disk full\"}", CALL);
                JsonNode search = agent.call(url, era, "search_docs", "{\"query\":\"retry\"}", CALL);
                JsonNode flag = agent.call(url, era, "set_flag", "{\"flag\":\"on\"}", CALL);

                String where = era + "/" + answers;
                assertThat(text(ticket)).as(where).isEqualTo("Ticket T-" + round + " created: disk full");
                assertThat(text(search)).as(where).isEqualTo(round + ": results for retry");
                assertThat(text(flag)).as(where).isEqualTo("flag on set (" + round + ")");
                assertThat(ticket.at("/attempts/0/sessionId").isNull()).as(where + ": a session only on the session-based generation")
                        .isEqualTo(era == Era.MODERN);
            }
        }
        server.awaitExecutions("set_flag", 4, WAIT);   // the last line printed; the others came before it
        assertThat(server.executions("create_ticket")).isEqualTo(4);
        assertThat(JSON.readTree(server.countsJson())).isEqualTo(JSON.readTree("{\"create_ticket\":4,\"search_docs\":4,\"set_flag\":4}"));
    }

    @Test
    void sseAnswersCarryProgressBeforeTheResultAndJsonAnswersDoNot() throws Exception {
        for (Era era : Era.values()) {
            JsonNode sse = agent.call(server.endpoint(era, Answers.SSE), era, "create_ticket", "{}", CALL, 0, true, Map.of());
            JsonNode json = agent.call(server.endpoint(era, Answers.JSON), era, "create_ticket", "{}", CALL, 0, true, Map.of());

            assertThat(sse.at("/attempts/0/ok").asBoolean()).as(era + " sse").isTrue();
            assertThat(sse.at("/attempts/0/progress").asInt()).as(era + " sse").isEqualTo(2);
            assertThat(json.at("/attempts/0/progress").asInt()).as(era + " json").isZero();
        }
    }

    @Test
    void aClientTimeoutAndRetryFromANewSessionExecutesTwiceWithoutAProxy() throws Exception {
        for (Era era : Era.values()) {
            server.reset();
            JsonNode r = agent.call(server.endpoint(era, Answers.SSE), era, "slow_commit", "{\"delayMs\":1500}",
                    Duration.ofMillis(300), 1, false, Map.of());

            assertThat(r.path("attempts")).as(era.toString()).hasSize(2);
            for (JsonNode a : r.path("attempts")) {
                assertThat(a.path("ok").asBoolean()).isFalse();
                assertThat(a.at("/error/message").asText()).containsIgnoringCase("timed out");
            }
            if (era == Era.SESSION) {
                assertThat(r.at("/attempts/0/sessionId").asText()).isNotEqualTo(r.at("/attempts/1/sessionId").asText());
            }
            server.awaitExecutions("slow_commit", 2, WAIT);   // the duplicate the proxy is there to prevent
        }
    }

    @Test
    void commitThenDropLeavesTheAgentWithoutAnAnswerAfterOneExecution() throws Exception {
        for (Era era : Era.values()) {
            for (Answers answers : Answers.values()) {
                server.reset();
                JsonNode r = agent.call(server.endpoint(era, answers), era, "commit_then_drop", "{}", CALL);

                assertThat(r.at("/attempts/0/ok").asBoolean()).as(era + "/" + answers).isFalse();
                server.awaitExecutions("commit_then_drop", 1, WAIT);
                assertThat(JSON.readTree(server.countsJson()).path("commit_then_drop").asInt()).as(era + "/" + answers).isEqualTo(1);
            }
        }
    }

    @Test
    void failInternalCommitsThenAnswersInternalError() throws Exception {
        for (Era era : Era.values()) {
            for (Answers answers : Answers.values()) {
                server.reset();
                JsonNode r = agent.call(server.endpoint(era, answers), era, "fail_internal", "{}", CALL);

                assertThat(r.at("/attempts/0/error/code").asInt()).as(era + "/" + answers).isEqualTo(-32603);
                server.awaitExecutions("fail_internal", 1, WAIT);
                assertThat(JSON.readTree(server.countsJson()).path("fail_internal").asInt()).isEqualTo(1);
            }
        }
    }

    @Test
    void toolsListCarriesTheAnnotationsAndTheirOverrides() throws Exception {
        JsonNode before = agent.list(server.endpoint(Era.MODERN, Answers.JSON), Era.MODERN, null);
        server.annotate("create_ticket", "{\"readOnlyHint\":true}");
        JsonNode after = agent.list(server.endpoint(Era.SESSION, Answers.SSE), Era.SESSION, null);

        assertThat(before.path("tools").findValuesAsText("name"))
                .containsExactly("search_docs", "create_ticket", "slow_commit", "commit_then_drop", "set_flag", "fail_internal");
        assertThat(annotation(before, "search_docs", "readOnlyHint")).isTrue();
        assertThat(annotation(before, "set_flag", "idempotentHint")).isTrue();
        assertThat(annotation(before, "create_ticket", "readOnlyHint")).isFalse();
        assertThat(annotation(after, "create_ticket", "readOnlyHint")).isTrue();
    }

    @Test
    void theDialectReadsWhatTheSdkServerWritesOnTheWire() throws Exception {
        byte[] request = modern(3, "tools/call", "\"name\":\"create_ticket\",\"arguments\":{\"title\":\"wire\"},\"_meta\":{\"progressToken\":5,");
        McpMessage message = McpMessageReader.read(request);
        HttpResponse<byte[]> sse = post(server.endpoint(Era.MODERN, Answers.SSE), request, "tools/call", "create_ticket");

        assertThat(message.toolCall().argumentsText()).isEqualTo("{\"title\":\"wire\"}");
        assertThat(sse.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
        SseResponseCapture capture = new SseResponseCapture(message.rawId(), 1 << 20);
        byte[] body = sse.body();
        for (int i = 0; i < body.length; i += 7) {   // as the chunks of a stream would come
            capture.feed(body, i, Math.min(7, body.length - i));
        }
        byte[] finalResponse = capture.finalResponse().orElseThrow();
        assertThat(new String(body, UTF_8)).contains("notifications/progress");
        assertThat(new String(finalResponse, UTF_8)).doesNotContain("notifications/progress").contains("Ticket T-1 created: wire");
        McpOutcome outcome = McpOutcomes.ofAnswer(sse.statusCode(), finalResponse);
        assertThat(outcome.outcomeClass()).isEqualTo(OutcomeClass.EXECUTED);
        byte[] replay = McpReplay.withId(finalResponse, "\"retry-1\"").orElseThrow();
        assertThat(JsonRpcResponse.read(replay).orElseThrow().rawId()).isEqualTo("\"retry-1\"");
        assertThat(new String(replay, UTF_8).replace("\"id\":\"retry-1\"", "\"id\":3")).isEqualTo(new String(finalResponse, UTF_8));

        HttpResponse<byte[]> internal = post(server.endpoint(Era.MODERN, Answers.JSON),
                modern(4, "tools/call", "\"name\":\"fail_internal\",\"arguments\":{},\"_meta\":{"), "tools/call", "fail_internal");
        assertThat(McpOutcomes.ofAnswer(internal.statusCode(), internal.body()).outcomeClass()).isEqualTo(OutcomeClass.UNKNOWN);
    }

    @Test
    void theCatalogueFollowsThePagesOfARealToolsList() throws Exception {
        try (McpServerFixture paged = McpServerFixture.start(4)) {
            ToolCatalogue catalogue = new ToolCatalogue();
            String cursor = null;
            int pages = 0;
            do {
                String params = (cursor == null ? "" : "\"cursor\":\"" + cursor + "\",") + "\"_meta\":{";
                HttpResponse<byte[]> page = post(paged.endpoint(Era.MODERN, Answers.JSON), modern(10 + pages, "tools/list", params), "tools/list", null);
                assertThat(catalogue.observe(cursor, page.body())).as("page %d", pages).isTrue();
                cursor = JSON.readTree(page.body()).at("/result/nextCursor").asText(null);
                pages++;
            } while (cursor != null);

            assertThat(pages).isEqualTo(2);
            assertThat(catalogue.tools()).hasSize(6);
            assertThat(catalogue.isReadOnly("search_docs")).isTrue();
            assertThat(catalogue.isIdempotent("set_flag")).isTrue();
            assertThat(catalogue.label("create_ticket")).isEqualTo("create_ticket");
        }
    }

    private static String text(JsonNode call) {
        assertThat(call.at("/attempts/0/ok").asBoolean()).as("call answered: %s", call).isTrue();
        return call.at("/attempts/0/result/content/0/text").asText();
    }

    private static boolean annotation(JsonNode list, String tool, String hint) {
        for (JsonNode t : list.path("tools")) {
            if (t.path("name").asText().equals(tool)) {
                return t.at("/annotations/" + hint).asBoolean(false);
            }
        }
        throw new AssertionError(tool + " not listed: " + list);
    }

    /** A 2026-07-28 request; {@code paramsOpeningMeta} ends inside an opened {@code _meta} object. */
    private static byte[] modern(int id, String method, String paramsOpeningMeta) {
        return ("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":{" + paramsOpeningMeta
                + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"raw\",\"version\":\"1\"},"
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}").getBytes(UTF_8);
    }

    private static HttpResponse<byte[]> post(URI url, byte[] body, String method, String name) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(url)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Method", method)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (name != null) {
            b.header("Mcp-Name", name);
        }
        HttpResponse<byte[]> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).as("POST %s: %s", url, new String(r.body(), UTF_8)).isEqualTo(200);
        return r;
    }
}
