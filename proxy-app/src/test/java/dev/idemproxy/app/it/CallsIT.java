package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.closeWithoutResponse;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static dev.idemproxy.core.testing.UpstreamAction.retryAfter;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.TestUpstream;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Each call's tries, kept with its receipt and read through {@code /calls}, on the wire: a real
 * proxy on the embedded store, a real upstream on loopback.
 */
@ExtendWith(LeakDetection.class)
class CallsIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static TestUpstream upstream;
    static RunningProxy proxy;
    static Path data;
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
        data = Files.createTempDirectory("idemproxy-" + "CallsIT-data");
        proxy = RunningProxy.startWithAdminToken("t0ken", "store: { type: embedded, embedded: { path: \"" + data.toString().replace("\\", "/") + "\" } }\n", ""
                + "routes:\n"
                + "  - name: tickets\n"
                + "    match: { pathPrefix: /tickets }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    tags: [idempotent]\n"
                + "    idempotency: { enabled: true }\n"
                + "    timeouts: { perTry: 2s, total: 10s }\n"
                + "    retry: { maxAttempts: 3, backoff: { initial: 20ms, max: 50ms, jitter: none } }\n");
    }

    @AfterAll
    static void stop() {
        proxy.close();
        upstream.close();
        try (java.util.stream.Stream<Path> files = Files.walk(data)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException | RuntimeException e) {
            // a temp directory: left for the system to clear
        }
    }

    static HttpResponse<String> post(String path, String task) throws Exception {
        return client.send(HttpRequest.newBuilder(proxy.uri(path)).POST(HttpRequest.BodyPublishers.ofString("{\"a\":1}"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer sk-live-123")
                .header("X-Task-Id", task).build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode admin(String path) throws Exception {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(proxy.admin(path)).header("Authorization", "Bearer t0ken").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    @Test
    void aCallRetriedTwiceThenAnsweredShowsThreeTriesWithTheirClassesWaitsAndRedactedHeads() throws Exception {
        upstream.enqueue(respond(503, "busy"), retryAfter(429, "1"), respond(201, "made"));
        HttpResponse<String> r = post("/tickets?api_key=k-123&page=2", "task-a");
        assertThat(r.statusCode()).isEqualTo(201);
        String callId = r.headers().firstValue("X-Call-Id").orElseThrow();

        JsonNode call = admin("/calls/" + callId);
        JsonNode tries = call.get("tries");
        assertThat(tries).hasSize(3);
        assertThat(tries).extracting(t -> t.get("status").asInt()).containsExactly(503, 429, 201);
        assertThat(tries).extracting(t -> t.get("class").asText()).containsExactly("unknown", "not-executed", "executed");
        assertThat(tries).extracting(t -> t.get("next").asText()).containsExactly("retry", "retry", "answer");
        assertThat(tries).extracting(t -> t.get("why").asText()).containsExactly("backoff", "retry-after", "executed");
        assertThat(tries.get(0).get("waitMs").asLong()).isEqualTo(20);
        assertThat(tries.get(1).get("waitMs").asLong()).isEqualTo(1000);
        assertThat(tries.get(2).get("waitMs").isNull()).isTrue();
        assertThat(tries.get(2).get("startMs").asLong()).isGreaterThanOrEqualTo(1020);
        assertThat(call.get("triesOmitted").asInt()).isZero();
        assertThat(call.get("attempts").asInt()).isEqualTo(3);
        assertThat(call.get("taskId").asText()).isEqualTo("task-a");
        assertThat(call.get("request").get("uri").asText()).isEqualTo("/tickets?api_key=***&page=2");
        assertThat(call.get("request").get("method").asText()).isEqualTo("POST");
        assertThat(call.get("request").get("headers").toString()).contains("{\"name\":\"Authorization\",\"value\":\"***\"}")
                .doesNotContain("sk-live-123");
        assertThat(call.get("response").get("status").asInt()).isEqualTo(201);
        assertThat(call.get("response").get("headers").toString()).contains(callId);
    }

    @Test
    void aCallThatFailedListsItsFailuresAndWhyItStoppedAndIsFoundByTaskAndStatus() throws Exception {
        upstream.enqueue(closeWithoutResponse(), respond(503, "a"), respond(503, "b"));
        HttpResponse<String> r = post("/tickets/fail", "task-b");
        assertThat(r.statusCode()).isEqualTo(503);
        String callId = r.headers().firstValue("X-Call-Id").orElseThrow();

        JsonNode tries = admin("/calls/" + callId).get("tries");
        assertThat(tries).extracting(t -> t.get("failure").isNull() ? t.get("status").asText() : t.get("failure").asText())
                .containsExactly("reset", "503", "503");
        assertThat(tries.get(2).get("next").asText()).isEqualTo("answer");
        assertThat(tries.get(2).get("why").asText()).isEqualTo("attempts_exhausted");

        JsonNode listed = admin("/calls?task=task-b&status=FAILED");
        assertThat(listed.get("calls")).extracting(c -> c.get("callId").asText()).containsExactly(callId);
        assertThat(admin("/calls?route=tickets&limit=500").get("calls").get(0).get("callId").asText())
                .as("newest first").isEqualTo(callId);
    }
}
