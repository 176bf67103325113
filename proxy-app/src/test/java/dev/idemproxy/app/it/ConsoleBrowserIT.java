package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static dev.idemproxy.core.testing.UpstreamAction.retryAfter;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.TestUpstream;
import java.io.File;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The console at {@code /ui}, end to end in a real browser: Debian's Chromium driven by
 * playwright-core ({@code src/test/console-e2e}, installed as a {@link NodeProject}; Chromium is
 * installed with apt-get when missing and this runs as root, as the Node.js fixtures are), against
 * the real proxy on the embedded store with a real upstream on loopback. This class makes the
 * calls; the script checks what the console shows of them, one browser, one proxy, each scenario
 * printing a line. Screenshots of every page go to {@code target/console-e2e/shots}.
 */
@ExtendWith(LeakDetection.class)
class ConsoleBrowserIT {
    static final NodeProject E2E = new NodeProject("console-e2e", List.of("package.json", "package-lock.json", "console.mjs"),
            "the console's browser test");
    static final String TOKEN = "console-t0ken";
    static final String SECRET = "sk-live-console-42";
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static TestUpstream upstream;
    static RunningProxy proxy;
    static Path data;

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
        data = Files.createTempDirectory("idemproxy-" + "ConsoleBrowserIT-data");
        proxy = RunningProxy.startWithAdminToken(TOKEN, "store: { type: embedded, embedded: { path: \"" + data.toString().replace("\\", "/") + "\" } }\n", ""
                + "routes:\n"
                + "  - name: tickets\n"
                + "    match: { pathPrefix: /tickets }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    tags: [idempotent]\n"
                + "    idempotency: { enabled: true }\n"
                + "    timeouts: { perTry: 2s, total: 10s }\n"
                + "    retry: { maxAttempts: 3, backoff: { initial: 100ms, max: 200ms, jitter: none } }\n"
                + "  - name: orders\n"
                + "    match: { pathPrefix: /orders }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    tags: [idempotent]\n"
                + "    idempotency: { enabled: true }\n"
                + "    retry: { maxAttempts: 2, backoff: { initial: 10ms, max: 20ms, jitter: none } }\n");
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (upstream != null) {
            upstream.close();
        }
        try (java.util.stream.Stream<Path> files = Files.walk(data)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException | RuntimeException e) {
            // a temp directory: left for the system to clear
        }
    }

    static HttpResponse<String> post(String path, Map<String, String> headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(proxy.uri(path)).POST(HttpRequest.BodyPublishers.ofString("{\"seat\":\"12A\"}"))
                .header("Content-Type", "application/json");
        headers.forEach(b::header);
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode admin(String path) throws Exception {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(proxy.admin(path)).header("Authorization", "Bearer " + TOKEN).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    @Test
    void theConsoleShowsTriesReplaysDeadLettersRefusesAWrongTokenAndHidesSecrets() throws Exception {
        Path dir = E2E.directory();
        E2E.require("chromium", "--version", "chromium");

        upstream.enqueue(respond(503, "busy"), retryAfter(429, "1"), respond(201, "{\"id\":7}"));
        HttpResponse<String> retried = post("/tickets?api_key=" + SECRET + "&page=2",
                Map.of("Authorization", "Bearer " + SECRET, "X-Task-Id", "task-7", "X-Biz-Id", "order-42"));
        assertThat(retried.statusCode()).isEqualTo(201);
        upstream.enqueue(respond(503, "down"), respond(503, "still down"));
        HttpResponse<String> failed = post("/orders", Map.of("Idempotency-Key", "order-9", "X-Task-Id", "task-7"));
        assertThat(failed.statusCode()).isEqualTo(503);
        String failedCall = failed.headers().firstValue("X-Call-Id").orElseThrow();
        JsonNode entries = admin("/dlq").get("entries");
        assertThat(entries).hasSize(1);
        String dlqId = entries.get(0).get("id").asText();
        upstream.enqueue(respond(201, "{\"id\":9}"));  // the replay's answer

        Path shots = dir.resolve("shots");
        ProcessBuilder pb = new ProcessBuilder("node", "console.mjs").directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(Map.of(
                "CONSOLE_ADMIN_URL", "http://127.0.0.1:" + proxy.assembly.adminAddress().getPort(),
                "CONSOLE_TOKEN", TOKEN,
                "CONSOLE_SECRET", SECRET,
                "CONSOLE_RETRIED_CALL", retried.headers().firstValue("X-Call-Id").orElseThrow(),
                "CONSOLE_DLQ_ID", dlqId,
                "CONSOLE_DLQ_CALL", failedCall,
                "CONSOLE_SHOTS", shots.toString(),
                "CONSOLE_CHROMIUM", chromium()));
        Process node = pb.start();
        String out = new String(node.getInputStream().readAllBytes(), UTF_8);
        assertThat(node.waitFor(3, TimeUnit.MINUTES)).as("the browser script ended").isTrue();
        assertThat(node.exitValue()).as(out).isZero();
        assertThat(out.lines().filter(l -> l.startsWith("ok - "))).as(out).hasSize(5);

        assertThat(admin("/calls/" + failedCall).get("status").asText()).isEqualTo("SUCCESS");
        assertThat(admin("/dlq").get("entries")).isEmpty();
        assertThat(upstream.requestCount()).as("3 tries, 2 tries, 1 replay").isEqualTo(6);
        for (String shot : List.of("console-calls.png", "console-call.png", "console-call-narrow.png", "console-dead-letters.png",
                "console-replay-confirm.png", "console-overview.png")) {
            assertThat(shots.resolve(shot)).isNotEmptyFile();
        }
    }

    /** Chromium's executable: the first {@code chromium} on the PATH. */
    static String chromium() {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            Path p = Path.of(d, "chromium");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return "/usr/bin/chromium";
    }
}
