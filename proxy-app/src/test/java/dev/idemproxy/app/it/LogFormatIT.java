package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import dev.idemproxy.core.testing.FreePorts;
import dev.idemproxy.core.testing.TestUpstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CONTRACT §9 from outside, in both formats: exactly one {@code idemproxy.calls} line per finished
 * call (a retried one too); with {@code --log-format json} every stdout line is one JSON object
 * with the call's fields at the top level, typed; secrets never printed.
 */
class LogFormatIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern UTC_MILLIS = Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z");
    /** A business id a JSON line must escape: quotes, a backslash, a newline, a tab and non-ASCII. */
    private static final String AWKWARD_BIZ = "o-9 \"quoted\" C:\\dir\nnext\tline über ✓ 東京 \uD83D\uDE00";

    @TempDir
    Path dir;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final String secret = "sk-live-" + UUID.randomUUID();
    private int port;

    @Test
    void everyJsonLineIsOneObjectAndCallLinesCarryTheirFieldsAtTheTopLevel() throws Exception {
        List<String> stdout;
        String executedId;
        String retriedId;
        try (TestUpstream upstream = TestUpstream.start(); ChildProxy child = start(upstream, "json")) {
            upstream.enqueue(respond(201, "created"));
            HttpResponse<String> executed = post("/orders", "k-1", "{\"orderId\":" + JSON.writeValueAsString(AWKWARD_BIZ) + "}");
            assertThat(executed.statusCode()).isEqualTo(201);
            executedId = executed.headers().firstValue("X-Call-Id").orElseThrow();
            HttpResponse<String> replayed = post("/orders", "k-1", "{\"orderId\":" + JSON.writeValueAsString(AWKWARD_BIZ) + "}");
            assertThat(replayed.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(post("/orders", "k-1", "{\"orderId\":\"another\"}").statusCode()).isEqualTo(422);
            upstream.enqueue(respond(503, "busy"), respond(200, "done"));
            HttpResponse<String> retried = post("/idem/a", null, "{}");
            assertThat(retried.statusCode()).isEqualTo(200);
            assertThat(retried.headers().firstValue("X-Attempts")).hasValue("2");
            retriedId = retried.headers().firstValue("X-Call-Id").orElseThrow();
            upstream.enqueue(respond(200, "a file"));
            assertThat(get("/files/f").statusCode()).isEqualTo(200);
            stdout = stopAndCollect(child, "\"logger\":\"idemproxy\\.calls\"", 5);
        }

        List<JsonNode> calls = new ArrayList<>();
        for (String line : stdout) {
            JsonNode json = JSON.readTree(line);
            assertThat(json.isObject()).as(line).isTrue();
            assertThat(json.get("timestamp").asText()).as(line).matches(UTC_MILLIS);
            assertThat(json.get("level").isTextual()).as(line).isTrue();
            assertThat(json.get("logger").isTextual()).as(line).isTrue();
            assertThat(json.get("thread").isTextual()).as(line).isTrue();
            assertThat(json.get("message").isTextual()).as(line).isTrue();
            if (json.get("logger").asText().equals("idemproxy.calls")) {
                calls.add(json);
            }
        }
        assertThat(stdout).anySatisfy(l -> assertThat(JSON.readTree(l).get("message").asText()).contains("listening on"));
        assertThat(calls).hasSize(5);

        // Found by what they are, not by their order: two calls' lines may be written in either order.
        JsonNode executed = only(calls, "orders", "executed");
        assertCallLine(executed, executedId, AWKWARD_BIZ, 1, "orders", "k-1", 201, "executed");
        assertThat(executed.get("message").asText())
                .startsWith("[call=" + executedId + "][biz=\"o-9 \\\"quoted\\\" C:\\\\dir\\u000anext\\u0009line über ✓ 東京 \uD83D\uDE00\"]"
                        + "[try=1] route=orders key=k-1 status=201");
        assertCallLine(only(calls, "orders", "replayed"), executedId, AWKWARD_BIZ, 1, "orders", "k-1", 201, "replayed");
        JsonNode rejected = only(calls, "orders", "rejected");
        assertCallLine(rejected, rejected.get("call").textValue(), "another", 0, "orders", "k-1", 422, "rejected");
        assertThat(rejected.get("reason").asText()).isEqualTo("key-reused-with-different-payload");
        // A retried call without a key gets one of the proxy's (g-CALLID), which its attempts share.
        assertCallLine(only(calls, "idem", "executed"), retriedId, null, 2, "idem", "g-" + retriedId, 200, "executed");
        JsonNode forwarded = only(calls, "files", "forwarded");
        assertCallLine(forwarded, null, null, 1, "files", null, 200, "forwarded");
        assertThat(forwarded.has("reason")).isFalse();

        // One line for the retried call, in the calls logger or any other at the default level.
        assertThat(calls.stream().filter(c -> retriedId.equals(c.get("call").textValue()))).hasSize(1);
        assertThat(stdout.stream().filter(l -> l.contains(retriedId))).hasSize(1);
        assertThat(stdout).noneSatisfy(l -> assertThat(l).contains("retrying in"));
    }

    @Test
    void aRetriedCallHasOneTextLine() throws Exception {
        List<String> stdout;
        String retriedId;
        try (TestUpstream upstream = TestUpstream.start(); ChildProxy child = start(upstream, "text")) {
            upstream.enqueue(respond(503, "busy"), respond(503, "still busy"), respond(200, "done"));
            HttpResponse<String> retried = post("/idem/a", null, "{}");
            assertThat(retried.statusCode()).isEqualTo(200);
            assertThat(retried.headers().firstValue("X-Attempts")).hasValue("3");
            retriedId = retried.headers().firstValue("X-Call-Id").orElseThrow();
            stdout = stopAndCollect(child, " calls - \\[call=", 1);
        }

        List<String> lines = stdout.stream().filter(l -> l.contains("[call=" + retriedId + "]")).toList();
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).contains(" calls - [call=" + retriedId + "][biz=-][try=3] route=idem key=g-" + retriedId + " status=200 ");
        assertThat(stdout).noneSatisfy(l -> assertThat(l).contains("retrying in"));
    }

    @Test
    void retryDecisionsAreDebugLinesOfTheirOwnLoggerWhenAnOperatorsLogbackFileTurnsThemOn() throws Exception {
        Path logback = dir.resolve("logback-debug.xml");
        Files.writeString(logback, "<configuration>\n"
                + "  <appender name=\"OUT\" class=\"dev.idemproxy.app.logging.BatchingStdoutAppender\">\n"
                + "    <encoder class=\"dev.idemproxy.app.logging.JsonLineEncoder\"/>\n  </appender>\n"
                + "  <logger name=\"io.netty\" level=\"WARN\"/>\n"
                + "  <logger name=\"idemproxy.retries\" level=\"DEBUG\"/>\n"
                + "  <root level=\"INFO\"><appender-ref ref=\"OUT\"/></root>\n</configuration>\n");
        List<String> stdout;
        String retriedId;
        try (TestUpstream upstream = TestUpstream.start();
                ChildProxy child = start(upstream, "json", Map.of("JAVA_TOOL_OPTIONS", "-Dlogback.configurationFile=" + logback))) {
            upstream.enqueue(respond(503, "busy"), respond(503, "still busy"), respond(200, "done"));
            HttpResponse<String> retried = post("/idem/a", null, "{}");
            assertThat(retried.statusCode()).isEqualTo(200);
            retriedId = retried.headers().firstValue("X-Call-Id").orElseThrow();
            stdout = stopAndCollect(child, "\"logger\":\"idemproxy\\.calls\"", 1);
        }

        List<JsonNode> lines = new ArrayList<>();
        for (String line : stdout) {
            lines.add(JSON.readTree(line));
        }
        List<JsonNode> calls = lines.stream().filter(l -> l.get("logger").asText().equals("idemproxy.calls")).toList();
        assertThat(calls).hasSize(1);
        assertCallLine(calls.get(0), retriedId, null, 3, "idem", "g-" + retriedId, 200, "executed");
        List<JsonNode> retries = lines.stream().filter(l -> l.get("logger").asText().equals("idemproxy.retries")).toList();
        assertThat(retries).hasSize(2);
        for (int i = 0; i < 2; i++) {
            JsonNode r = retries.get(i);
            assertThat(r.get("level").asText()).isEqualTo("DEBUG");
            assertThat(r.get("call").asText()).isEqualTo(retriedId);
            assertThat(r.get("try").intValue()).isEqualTo(i + 1);
            assertThat(r.get("route").asText()).isEqualTo("idem");
            assertThat(r.get("reason").asText()).isEqualTo("503");
            assertThat(r.get("delayMs").isIntegralNumber()).isTrue();
            assertThat(r.get("message").asText()).contains("retrying in");
        }
    }

    private ChildProxy start(TestUpstream upstream, String format) throws Exception {
        return start(upstream, format, Map.of());
    }

    private ChildProxy start(TestUpstream upstream, String format, Map<String, String> env) throws Exception {
        int[] ports = FreePorts.pick(2);
        port = ports[0];
        Path config = dir.resolve("idemproxy.yaml");
        Files.writeString(config, "listen: 127.0.0.1:" + ports[0] + "\nadmin: { listen: 127.0.0.1:" + ports[1] + " }\n"
                + "store: { type: memory }\nroutes:\n"
                + "  - name: orders\n    match: { pathPrefix: /orders }\n    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true }\n    ids: { bizId: [body:/orderId] }\n"
                + "  - name: idem\n    match: { pathPrefix: /idem }\n    upstream: " + upstream.uri() + "\n"
                + "    tags: [idempotent]\n    timeouts: { perTry: 5s, total: 20s }\n"
                + "    retry: { maxAttempts: 3, backoff: { initial: 10ms, max: 20ms, jitter: none } }\n"
                + "  - name: files\n    match: { pathPrefix: /files }\n    upstream: " + upstream.uri() + "\n");
        ChildProxy child = ChildProxy.start(dir, env, "run", "--config", config.toString(), "--log-format", format);
        child.awaitLine("listening on");
        return child;
    }

    /** Waits for {@code count} call lines, stops the child with SIGTERM (which writes what is queued) and returns its stdout. */
    private List<String> stopAndCollect(ChildProxy child, String callLine, int count) throws Exception {
        child.awaitLines(callLine, count, Duration.ofSeconds(10));
        child.signal("TERM");
        assertThat(child.waitFor(Duration.ofSeconds(20))).isEqualTo(0);
        child.awaitStreamsClosed(Duration.ofSeconds(10));
        for (ChildProxy.Line l : child.lines()) {
            assertThat(l.text()).doesNotContain(secret);
        }
        return child.stdout();
    }

    private static JsonNode only(List<JsonNode> calls, String route, String outcome) {
        List<JsonNode> found = calls.stream()
                .filter(c -> route.equals(c.get("route").textValue()) && outcome.equals(c.get("outcome").textValue())).toList();
        assertThat(found).as("%s %s lines in %s", route, outcome, calls).hasSize(1);
        return found.get(0);
    }

    private static void assertCallLine(JsonNode line, String call, String biz, int attempts, String route, String key,
            int status, String outcome) {
        assertThat(line.get("level").asText()).isEqualTo("INFO");
        assertThat(line.get("call").getNodeType()).as("call in %s", line).isEqualTo(call == null ? JsonNodeType.NULL : JsonNodeType.STRING);
        assertThat(line.get("call").textValue()).isEqualTo(call);
        assertThat(line.get("biz").getNodeType()).as("biz in %s", line).isEqualTo(biz == null ? JsonNodeType.NULL : JsonNodeType.STRING);
        assertThat(line.get("biz").textValue()).isEqualTo(biz);
        assertThat(line.get("try").isInt()).as("try in %s", line).isTrue();
        assertThat(line.get("try").intValue()).isEqualTo(attempts);
        assertThat(line.get("route").textValue()).isEqualTo(route);
        assertThat(line.get("key").getNodeType()).as("key in %s", line).isEqualTo(key == null ? JsonNodeType.NULL : JsonNodeType.STRING);
        assertThat(line.get("key").textValue()).isEqualTo(key);
        assertThat(line.get("status").isInt()).as("status in %s", line).isTrue();
        assertThat(line.get("status").intValue()).isEqualTo(status);
        assertThat(line.get("outcome").textValue()).isEqualTo(outcome);
        assertThat(line.get("ms").isIntegralNumber()).as("ms in %s", line).isTrue();
        assertThat(line.get("ms").longValue()).isNotNegative();
    }

    private HttpResponse<String> post(String path, String key, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + secret)
                .header("Cookie", "session=" + secret).POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + secret).build(), HttpResponse.BodyHandlers.ofString());
    }
}
