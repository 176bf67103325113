package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.after;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.FreePorts;
import dev.idemproxy.core.testing.TestUpstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the process says about its own life, on its real output: the drain at SIGTERM (one line
 * when it starts, one when it ends, with the calls finished and cut), and the level set by
 * {@code --log-level} or {@code IDEMPROXY_LOG_LEVEL}.
 */
class ShutdownLogIT {
    @TempDir
    Path dir;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private int port;
    private int adminPort;

    @Test
    void aSigtermWithACallInFlightLogsTheDrainStartingAndEndingWithTheCallFinished() throws Exception {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        try (TestUpstream upstream = TestUpstream.start(); ChildProxy child = start(upstream, "20s", Map.of())) {
            child.awaitLine("listening on");
            upstream.enqueue(after(gate, respond(201, "done")));
            CompletableFuture<HttpResponse<String>> slow = client.sendAsync(post("/orders/1"), HttpResponse.BodyHandlers.ofString());
            upstream.awaitRequests(1, Duration.ofSeconds(10));

            child.signal("TERM");
            String started = child.awaitLine("drain started: ");
            gate.complete(null);

            assertThat(slow.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
            assertThat(child.waitFor(Duration.ofSeconds(20))).isEqualTo(0);
            child.awaitStreamsClosed(Duration.ofSeconds(10));
            assertThat(started).contains(" INFO ").endsWith("drain started: inFlight=1 graceMs=20000");
            String ended = only(child.stdout(), "drain ended: ");
            assertThat(ended).contains(" INFO ").matches(".* - drain ended: finished=1 cut=0 ms=\\d+$");
            List<String> out = child.stdout();
            assertThat(out.indexOf(started)).isLessThan(out.indexOf(ended));
        }
    }

    @Test
    void aCallStillInFlightWhenTheGraceRunsOutIsCountedAsCutAtWarn() throws Exception {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        try (TestUpstream upstream = TestUpstream.start(); ChildProxy child = start(upstream, "300ms", Map.of())) {
            child.awaitLine("listening on");
            upstream.enqueue(after(gate, respond(201, "too late")));
            CompletableFuture<HttpResponse<String>> slow = client.sendAsync(post("/orders/2"), HttpResponse.BodyHandlers.ofString());
            upstream.awaitRequests(1, Duration.ofSeconds(10));

            child.signal("TERM");
            assertThat(child.waitFor(Duration.ofSeconds(20))).as("exit 0 after the grace").isEqualTo(0);
            child.awaitStreamsClosed(Duration.ofSeconds(10));
            gate.complete(null);

            assertThat(only(child.stdout(), "drain started: ")).endsWith("drain started: inFlight=1 graceMs=300");
            assertThat(only(child.stdout(), "drain ended: ")).contains(" WARN ").matches(".* - drain ended: finished=0 cut=1 ms=\\d+$");
            assertThat(slow).failsWithin(Duration.ofSeconds(10));
        }
    }

    @Test
    void theEnvironmentsLogLevelTurnsOnDebugLines() throws Exception {
        try (TestUpstream upstream = TestUpstream.start();
                ChildProxy child = start(upstream, "5s", Map.of("IDEMPROXY_LOG_LEVEL", "debug"))) {
            child.awaitLine("listening on");
            upstream.enqueue(respond(503, "busy"), respond(201, "done"));
            assertThat(client.send(post("/orders/3"), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(201);

            assertThat(child.awaitLine(" DEBUG .* retries - \\[call=")).contains("retrying in");
        }
    }

    @Test
    void theFlagWinsOverTheEnvironmentAndWarnLeavesNoInfoLine() throws Exception {
        try (TestUpstream upstream = TestUpstream.start();
                ChildProxy child = start(upstream, "5s", Map.of("IDEMPROXY_LOG_LEVEL", "DEBUG"), "--log-level", "WARN")) {
            awaitReady();
            upstream.enqueue(respond(503, "busy"), respond(201, "done"));
            assertThat(client.send(post("/orders/4"), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(201);
            child.signal("TERM");
            assertThat(child.waitFor(Duration.ofSeconds(20))).isEqualTo(0);
            child.awaitStreamsClosed(Duration.ofSeconds(10));

            assertThat(child.stdout()).noneSatisfy(l -> assertThat(l).containsAnyOf(" INFO ", " DEBUG "));
        }
    }

    @Test
    void aLogLevelThatIsNoLevelExitsTwoSayingWhy() throws Exception {
        try (TestUpstream upstream = TestUpstream.start()) {
            ChildProxy.Finished bad = start(upstream, "5s", Map.of("IDEMPROXY_LOG_LEVEL", "LOUD")).finish();
            assertThat(bad.exitCode()).as(bad.toString()).isEqualTo(2);
            assertThat(bad.stderr())
                    .containsExactly("idemproxy: IDEMPROXY_LOG_LEVEL 'LOUD' (expected: TRACE, DEBUG, INFO, WARN or ERROR)");
            assertThat(bad.stdout()).noneSatisfy(l -> assertThat(l).contains("listening on"));
        }
    }

    private ChildProxy start(TestUpstream upstream, String grace, Map<String, String> env, String... extra) throws Exception {
        int[] ports = FreePorts.pick(2);
        port = ports[0];
        adminPort = ports[1];
        Path config = dir.resolve("idemproxy.yaml");
        Files.writeString(config, "listen: 127.0.0.1:" + ports[0] + "\nadmin: { listen: 127.0.0.1:" + ports[1] + " }\n"
                + "shutdown: { grace: " + grace + " }\nstore: { type: memory }\nroutes:\n"
                + "  - name: orders\n    match: { pathPrefix: /orders }\n    upstream: " + upstream.uri() + "\n"
                + "    tags: [idempotent]\n    timeouts: { perTry: 30s, total: 60s }\n"
                + "    idempotency: { enabled: true }\n"
                + "    retry: { maxAttempts: 2, backoff: { initial: 10ms, max: 20ms, jitter: none } }\n");
        String[] args = new String[4 + extra.length];
        args[0] = "run";
        args[1] = "--config";
        args[2] = config.toString();
        args[3] = "--log-format=text";
        System.arraycopy(extra, 0, args, 4, extra.length);
        return ChildProxy.start(dir, env, args);
    }

    /** Polls the admin listener's /readyz until it answers 200 (a WARN-level proxy prints no "listening on"). */
    private void awaitReady() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/readyz"))
                .timeout(Duration.ofSeconds(2)).build();
        while (true) {
            try {
                if (client.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (java.io.IOException notYet) {
                // not listening yet
            }
            assertThat(System.nanoTime()).as("ready within 15 s").isLessThan(deadline);
            Thread.sleep(20);  // the next poll
        }
    }

    private HttpRequest post(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).header("Idempotency-Key", "k" + path)
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build();
    }

    private static String only(List<String> lines, String containing) {
        List<String> found = lines.stream().filter(l -> l.contains(containing)).toList();
        assertThat(found).as("lines with '%s' in %s", containing, lines).hasSize(1);
        return found.get(0);
    }
}
