package dev.idemproxy.app.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.app.it.McpServerFixture.Answers;
import dev.idemproxy.app.it.McpServerFixture.Era;
import dev.idemproxy.core.testing.LeakDetection;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An MCP route end to end with the official TypeScript SDKs on both sides: the fixture server
 * ({@link McpServerFixture}, both protocol generations, JSON and SSE answers) behind the real
 * proxy, and the SDK client ({@link McpClientDriver}) in front of it, retrying from a new
 * session as an agent does. Each test starts its own proxy, so each starts with an empty tool
 * catalogue (before any {@code tools/list}, every tool is protected).
 */
@ExtendWith(LeakDetection.class)
class McpProxyIT extends McpRouteFixture {
    static final Duration CALL = Duration.ofSeconds(15);
    static final Duration WAIT = Duration.ofSeconds(20);
    static final ObjectMapper JSON = new ObjectMapper();

    static McpClientDriver agent;

    @BeforeAll
    static void startAgent() throws Exception {
        agent = McpClientDriver.start();
    }

    @AfterAll
    static void stopAgent() {
        if (agent != null) {
            agent.close();
        }
    }

    @Test
    void aClientTimeoutAndRetryFromANewSessionExecutesOnceAndGetsItsOwnAnswer() throws Exception {
        startProxy("    idempotency: { waitTimeout: 20s }\n");
        int n = 0;
        for (Era era : Era.values()) {
            for (Answers answers : Answers.values()) {
                server.reset();
                String where = era + "/" + answers;
                String args = "{\"delayMs\":2500,\"case\":" + (++n) + "}";
                JsonNode timedOut = agent.call(via(era, answers), era, "slow_commit", args, Duration.ofMillis(800));
                server.awaitExecutions("slow_commit", 1, WAIT);
                JsonNode retried = agent.call(via(era, answers), era, "slow_commit", args, CALL);

                assertThat(timedOut.at("/attempts/0/ok").asBoolean()).as(where).isFalse();
                assertThat(timedOut.at("/attempts/0/error/message").asText()).as(where).containsIgnoringCase("timed out");
                assertThat(text(retried)).as(where + ": the first call's answer, under the retry's own id").isEqualTo("slow commit 1 done");
                assertThat(counts().path("slow_commit").asInt()).as(where + ": executed once").isEqualTo(1);
            }
        }
        assertThat(metric("idemproxy_mcp_calls_total{outcome=\"executed\",route=\"tools\",tool=\"other\"}")).isEqualTo(4);
        assertThat(metric("idemproxy_mcp_calls_total{outcome=\"replayed\",route=\"tools\",tool=\"other\"}")).isEqualTo(4);
    }

    @Test
    void readOnlyToolsAreNeverStoredOnceAToolsListSaysSoAndTheAnnotationsOfTheLatestListDecide() throws Exception {
        startProxy("");
        URI url = via(Era.SESSION, Answers.JSON);
        // Before any tools/list every tool is protected, search_docs too.
        assertThat(text(agent.call(url, Era.SESSION, "search_docs", "{\"query\":\"a\"}", CALL))).isEqualTo("1: results for a");
        assertThat(text(agent.call(url, Era.SESSION, "search_docs", "{\"query\":\"a\"}", CALL))).isEqualTo("1: results for a");

        assertThat(agent.list(via(Era.MODERN, Answers.SSE), Era.MODERN, null).path("ok").asBoolean()).isTrue();
        assertThat(text(agent.call(url, Era.SESSION, "search_docs", "{\"query\":\"b\"}", CALL))).isEqualTo("2: results for b");
        assertThat(text(agent.call(url, Era.SESSION, "search_docs", "{\"query\":\"b\"}", CALL))).isEqualTo("3: results for b");
        assertThat(text(agent.call(url, Era.SESSION, "create_ticket", "{\"title\":\"x\"}", CALL))).isEqualTo("Ticket T-1 created: x");
        assertThat(text(agent.call(url, Era.SESSION, "create_ticket", "{\"title\":\"x\"}", CALL))).isEqualTo("Ticket T-1 created: x");

        server.annotate("create_ticket", "{\"readOnlyHint\":true}");
        agent.list(url, Era.SESSION, null);
        assertThat(text(agent.call(url, Era.SESSION, "create_ticket", "{\"title\":\"y\"}", CALL))).isEqualTo("Ticket T-2 created: y");
        assertThat(text(agent.call(url, Era.SESSION, "create_ticket", "{\"title\":\"y\"}", CALL))).isEqualTo("Ticket T-3 created: y");

        assertThat(counts()).isEqualTo(JSON.readTree("{\"search_docs\":3,\"create_ticket\":3}"));
        assertThat(metric("idemproxy_mcp_calls_total{outcome=\"unprotected\",route=\"tools\",tool=\"search_docs\"}")).isEqualTo(2);
        assertThat(metric("idemproxy_mcp_calls_total{outcome=\"replayed\",route=\"tools\",tool=\"create_ticket\"}")).isEqualTo(1);
        assertThat(metric("idemproxy_mcp_calls_total{outcome=\"unprotected\",route=\"tools\",tool=\"create_ticket\"}")).isEqualTo(2);
        assertThat(metric("idemproxy_mcp_calls_total{outcome=\"replayed\",route=\"tools\",tool=\"other\"}"))
                .as("search_docs before the list: counted as other").isEqualTo(1);
    }

    @Test
    void anUpstreamInternalErrorIsStoredAsItCameAndRetriedOnlyForAnIdempotentTool() throws Exception {
        startProxy("    retry: { maxAttempts: 3, retryOn: [\"500\", reset], backoff: { initial: 10ms, max: 20ms, jitter: none } }\n");
        for (Answers answers : Answers.values()) {
            server.reset();
            URI url = via(Era.MODERN, answers);
            agent.list(url, Era.MODERN, null);
            JsonNode first = agent.call(url, Era.MODERN, "fail_internal", "{\"a\":\"" + answers + "\"}", CALL);
            JsonNode again = agent.call(url, Era.MODERN, "fail_internal", "{\"a\":\"" + answers + "\"}", CALL);

            assertThat(first.at("/attempts/0/error/code").asInt()).as(answers.toString()).isEqualTo(-32603);
            assertThat(again.at("/attempts/0/error/code").asInt()).as(answers + ": replayed as it came, not as executed")
                    .isEqualTo(-32603);
            assertThat(counts().path("fail_internal").asInt()).as(answers + ": not retried, not run again").isEqualTo(1);

            server.annotate("fail_internal", "{\"idempotentHint\":true}");
            agent.list(url, Era.MODERN, null);
            JsonNode retried = agent.call(url, Era.MODERN, "fail_internal", "{\"b\":\"" + answers + "\"}", CALL);
            assertThat(retried.at("/attempts/0/error/code").asInt()).isEqualTo(-32603);
            assertThat(counts().path("fail_internal").asInt()).as(answers + ": an idempotent tool is retried: 1 + 3").isEqualTo(4);
        }
        assertThat(metric("idemproxy_retries_total{reason=\"500\",route=\"tools\"}")).isEqualTo(4);
    }

    @Test
    void theProxysOwnErrorsReachTheAgentAsJsonRpcErrorsOfTheTool() throws Exception {
        startProxy("");
        URI url = via(Era.SESSION, Answers.SSE);
        Map<String, String> key = Map.of("Idempotency-Key", "order-77");
        JsonNode first = agent.call(url, Era.SESSION, "create_ticket", "{\"title\":\"a\"}", CALL, 0, false, key);
        JsonNode reused = agent.call(url, Era.SESSION, "create_ticket", "{\"title\":\"b\"}", CALL, 0, false, key);
        JsonNode dropped = agent.call(url, Era.SESSION, "commit_then_drop", "{}", CALL);
        JsonNode droppedAgain = agent.call(via(Era.MODERN, Answers.JSON), Era.MODERN, "commit_then_drop", "{}", CALL);
        JsonNode droppedSameEndpoint = agent.call(url, Era.SESSION, "commit_then_drop", "{}", CALL);

        assertThat(text(first)).isEqualTo("Ticket T-1 created: a");
        assertThat(reused.at("/attempts/0/error/code").asInt()).isEqualTo(-32004);
        assertThat(reused.at("/attempts/0/error/data/type").asText()).isEqualTo("urn:idemproxy:problem:key-reused-with-different-payload");
        assertThat(reused.at("/attempts/0/error/data/status").asInt()).isEqualTo(422);
        assertThat(dropped.at("/attempts/0/error/code").asInt()).isEqualTo(-32006);
        assertThat(dropped.at("/attempts/0/error/data/type").asText()).isEqualTo("urn:idemproxy:problem:ambiguous-outcome");
        assertThat(droppedSameEndpoint.at("/attempts/0/error/code").asInt()).as("the stored ambiguous outcome").isEqualTo(-32006);
        assertThat(droppedAgain.at("/attempts/0/error/code").asInt()).as("another endpoint: another call").isEqualTo(-32006);
        assertThat(counts()).isEqualTo(JSON.readTree("{\"create_ticket\":1,\"commit_then_drop\":2}"));
    }

    @Test
    void anSseAnswerReachesTheFirstCallerWholeWithItsProgress() throws Exception {
        startProxy("");
        for (Era era : Era.values()) {
            JsonNode r = agent.call(via(era, Answers.SSE), era, "create_ticket", "{\"era\":\"" + era + "\"}", CALL, 0, true, Map.of());
            assertThat(r.at("/attempts/0/ok").asBoolean()).as(era.toString()).isTrue();
            assertThat(r.at("/attempts/0/progress").asInt()).as(era + ": both progress notifications").isEqualTo(2);
        }
    }

    static String text(JsonNode call) {
        assertThat(call.at("/attempts/0/ok").asBoolean()).as("call answered: %s", call).isTrue();
        return call.at("/attempts/0/result/content/0/text").asText();
    }

    JsonNode counts() throws Exception {
        return JSON.readTree(server.countsJson());
    }

    double metric(String series) throws Exception {
        return McpWireIT.metric(proxy, series);
    }
}
