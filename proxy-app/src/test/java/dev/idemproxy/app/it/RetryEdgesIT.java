package dev.idemproxy.app.it;

import dev.idemproxy.core.testing.Await;

import static dev.idemproxy.core.testing.UpstreamAction.delayHead;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static dev.idemproxy.core.testing.UpstreamAction.retryAfter;
import static dev.idemproxy.core.testing.UpstreamAction.sse;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.idemproxy.core.testing.FreePorts;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.SseAction;
import dev.idemproxy.core.testing.TestUpstream;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The retry rules at their edges, on the wire: connect failures, Retry-After, deadlines, budgets, big and streamed responses. */
@ExtendWith(LeakDetection.class)
class RetryEdgesIT {
    static TestUpstream upstream;
    static RunningProxy proxy;
    static int latePort;
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
        latePort = FreePorts.pick();
        String retry = "    retry: { maxAttempts: 3, backoff: { initial: 10ms, max: 20ms, jitter: none }, maxRetryAfter: 5s }\n";
        proxy = RunningProxy.start(""
                + "retryBudget: { ratio: 0.1, minPerSecond: 0, window: 10s }\n"
                + "routes:\n"
                + "  - name: comes-up-later\n"
                + "    match: { pathPrefix: /later }\n"
                + "    upstream: http://127.0.0.1:" + latePort + "\n"
                + "    retry: { maxAttempts: 2, backoff: { initial: 2s, max: 2s, jitter: none } }\n"
                + "  - name: limited\n"
                + "    match: { pathPrefix: /limited }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    timeouts: { perTry: 10s, total: 20s }\n"
                + retry
                + "  - name: storm\n"
                + "    match: { pathPrefix: /storm }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    tags: [idempotent]\n"
                + retry
                + "  - name: big\n"
                + "    match: { pathPrefix: /big }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true, maxResponseBody: 1KiB }\n"
                + "  - name: events\n"
                + "    match: { pathPrefix: /events }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true }\n");
    }

    @AfterAll
    static void stop() {
        proxy.close();
        upstream.close();
    }

    int before;

    @BeforeEach
    void mark() {
        before = upstream.requestCount();
    }

    static HttpResponse<String> post(String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(proxy.uri(path)).POST(HttpRequest.BodyPublishers.ofString("{}"));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static String metrics() throws Exception {
        return client.send(HttpRequest.newBuilder(proxy.admin("/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void connectRefusedThenUpIsRetried() throws Exception {
        CompletableFuture<HttpResponse<String>> call = CompletableFuture.supplyAsync(() -> {
            try {
                return post("/later/x");
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        // Wait for the signal that the first attempt was refused, then bring the upstream up.
        Await.value("the first attempt's connect-failure on /metrics", java.time.Duration.ofSeconds(10), () -> metrics(),
                m -> m.contains("idemproxy_upstream_attempts_total{result=\"connect-failure\",route=\"comes-up-later\"}"));
        HttpServer late = HttpServer.create(new InetSocketAddress("127.0.0.1", latePort), 0);
        late.createContext("/", ex -> {
            byte[] b = "up now".getBytes(UTF_8);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        late.start();
        try {
            HttpResponse<String> r = call.get();
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("up now");
            assertThat(r.headers().firstValue("X-Attempts")).hasValue("2");
        } finally {
            late.stop(0);
        }
    }

    @Test
    void status429WithRetryAfterAsHttpDateIsWaited() throws Exception {
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(java.time.ZoneOffset.UTC).plusSeconds(1));
        upstream.enqueue(retryAfter(429, date), respond(201, "after the wait"));
        HttpResponse<String> r = post("/limited/a");
        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(r.headers().firstValue("X-Attempts")).hasValue("2");
    }

    @Test
    void retryAfterBeyondTheDeadlineAnswersThe429AtOnce() throws Exception {
        upstream.enqueue(retryAfter(429, "3"));
        long t0 = System.nanoTime();
        HttpResponse<String> r = post("/limited/b", "X-Request-Timeout-Ms", "1000");
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.headers().firstValue("X-Attempts")).hasValue("1");
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
        assertThat(System.nanoTime() - t0).isLessThan(3_000_000_000L);
    }

    @Test
    void callersDeadlineBoundsTheCallAndTravelsUpstream() throws Exception {
        upstream.enqueue(delayHead(Duration.ofSeconds(3), respond(200, "too late")));
        HttpResponse<String> r = post("/limited/c", "X-Request-Timeout-Ms", "400");
        assertThat(r.statusCode()).isEqualTo(504);
        assertThat(r.body()).contains("urn:idemproxy:problem:deadline-exceeded");
        long sent = Long.parseLong(upstream.awaitRequests(before + 1, Duration.ofSeconds(5)).get(before).header("X-Request-Timeout-Ms"));
        assertThat(sent).isBetween(1L, 400L);
    }

    @Test
    void anAttemptCutShortByTheCallersDeadlineIsAlwaysDeadlineExceeded() throws Exception {
        // The attempt's timer is min(perTry, time left): when the deadline cut it short, the
        // failure is the deadline's, never a plain read-timeout (ambiguous-outcome).
        for (int i = 0; i < 6; i++) {
            upstream.enqueue(delayHead(Duration.ofSeconds(2), respond(200, "too late")));
            HttpResponse<String> r = post("/limited/cut-" + i, "X-Request-Timeout-Ms", String.valueOf(150 + 37 * i));
            assertThat(r.statusCode()).isEqualTo(504);
            assertThat(r.body()).as("call %d", i).contains("urn:idemproxy:problem:deadline-exceeded");
        }
    }

    @Test
    void routeBudgetHoldsUnderAStormOfFailures() throws Exception {
        upstream.defaultAction(respond(503, "down"));
        try {
            for (int i = 0; i < 40; i++) {
                assertThat(post("/storm/" + i).statusCode()).isEqualTo(503);
            }
        } finally {
            upstream.defaultAction(respond(200, "ok"));
        }
        int attempts = upstream.requestCount() - before;
        // 40 calls with up to 3 attempts each would be 120; the budget allows about 10% retries.
        assertThat(attempts).isBetween(40, 40 + 5);
        // The series is there at 0 from the start: the count must have moved.
        assertThat(metrics()).containsPattern("idemproxy_retry_budget_exhausted_total\\{budget=\"route\",route=\"storm\"} [1-9][0-9]*\\.0");
    }

    @Test
    void responseOverMaxResponseBodyStreamsOnceThenDuplicatesGet409() throws Exception {
        String key = UUID.randomUUID().toString();
        String big = "x".repeat(4096);
        upstream.enqueue(respond(200, big));
        HttpResponse<String> first = post("/big/a", "Idempotency-Key", key);
        assertThat(first.body()).isEqualTo(big);
        HttpResponse<String> dup = post("/big/a", "Idempotency-Key", key);
        assertThat(dup.statusCode()).isEqualTo(409);
        assertThat(dup.body()).contains("urn:idemproxy:problem:result-not-retained");
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
    }

    @Test
    void serverSentEventsOnAProtectedRouteStreamAndAreReplayed() throws Exception {
        String key = UUID.randomUUID().toString();
        SseAction events = sse(List.of("one", "two"), Duration.ofMillis(300));
        upstream.enqueue(events);
        HttpResponse<InputStream> r = client.send(HttpRequest.newBuilder(proxy.uri("/events/run")).header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofInputStream());
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), UTF_8))) {
            assertThat(in.readLine()).isEqualTo("data: one");
            assertThat(events.eventsSent()).isEqualTo(1);
            while (in.readLine() != null) {
                // drain to the end of the stream
            }
        }
        HttpResponse<String> dup = post("/events/run", "Idempotency-Key", key);
        assertThat(dup.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(dup.body()).isEqualTo("data: one\n\ndata: two\n\n");
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
    }
}
