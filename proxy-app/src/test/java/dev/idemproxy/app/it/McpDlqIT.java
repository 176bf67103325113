package dev.idemproxy.app.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idemproxy.app.it.McpServerFixture.Answers;
import dev.idemproxy.app.it.McpServerFixture.Era;
import dev.idemproxy.core.testing.Await;
import dev.idemproxy.core.testing.LeakDetection;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The dead-letter workflow of an MCP tools/call, through the admin API of the real proxy in
 * front of the SDK fixture server: the replay runs the call again as itself, on its MCP route.
 */
@ExtendWith(LeakDetection.class)
class McpDlqIT {
    static McpServerFixture server;
    RunningProxy proxy;

    @BeforeAll
    static void startServer() throws Exception {
        server = McpServerFixture.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @AfterEach
    void stopProxy() {
        if (proxy != null) {
            proxy.close();
        }
    }

    /**
     * A tool call answered -32603 is dead-lettered; its replay executes the tool again under the
     * same call id and, failing again, leaves one entry for the call: the replay's (a JSON-RPC
     * error comes over HTTP 200, so the old entry goes and the re-run's own stays, never none).
     * An agent's duplicate then gets the replay's stored answer with its own id.
     */
    @Test
    void aDeadLetteredToolCallIsReplayedAsItselfAndStaysDeadLetteredWhileItFails() throws Exception {
        server.reset();
        proxy = RunningProxy.start(McpProxyIT.routes(server, ""));
        URI url = proxy.uri(server.endpoint(Era.MODERN, Answers.JSON).getPath());
        HttpResponse<String> failed = McpWireIT.postModern(url, 7, "fail_internal", "{\"n\":1}", false);
        assertThat(failed.body()).contains("-32603", "\"id\":7");
        String callId = failed.headers().firstValue("X-Call-Id").orElseThrow();
        JsonNode entry = Await.value("the dead letter", McpWireIT.WAIT, () -> admin("GET", "/dlq"),
                d -> d.path("entries").size() == 1).at("/entries/0");
        assertThat(entry.path("callId").asText()).isEqualTo(callId);
        JsonNode shown = admin("GET", "/dlq/" + entry.path("id").asText());
        assertThat(shown.path("request").toString()).contains("fail_internal", "Mcp-Method");

        JsonNode replay = admin("POST", "/dlq/" + entry.path("id").asText() + "/replay");
        assertThat(replay.path("status").asInt()).isEqualTo(200);
        assertThat(replay.path("callId").asText()).isEqualTo(callId);
        assertThat(server.executions("fail_internal")).as("the replay ran the tool again").isEqualTo(2);
        JsonNode after = Await.value("the replay's own dead letter", McpWireIT.WAIT, () -> admin("GET", "/dlq"),
                d -> d.path("entries").size() == 1 && !d.at("/entries/0/id").asText().equals(entry.path("id").asText()));
        assertThat(after.at("/entries/0/callId").asText()).isEqualTo(callId);
        assertThat(after.at("/entries/0/route").asText()).isEqualTo("tools");

        HttpResponse<String> duplicate = McpWireIT.postModern(url, 8, "fail_internal", "{\"n\":1}", false);
        assertThat(duplicate.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(duplicate.body()).contains("-32603", "\"id\":8");
        assertThat(server.executions("fail_internal")).isEqualTo(2);
    }

    JsonNode admin(String method, String path) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(proxy.admin(path));
        b = method.equals("POST") ? b.POST(HttpRequest.BodyPublishers.noBody()) : b.GET();
        return McpWireIT.JSON.readTree(McpWireIT.HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString()).body());
    }
}
