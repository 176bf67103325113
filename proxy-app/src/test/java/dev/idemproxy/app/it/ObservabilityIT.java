package dev.idemproxy.app.it;

import dev.idemproxy.core.testing.Await;

import static dev.idemproxy.core.testing.UpstreamAction.delayHead;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.TestUpstream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** docs/metrics.md metrics and §9 call log lines, seen from outside; secrets never printed. */
@ExtendWith(LeakDetection.class)
class ObservabilityIT {
    static final String SECRET = "Bearer sk-live-" + UUID.randomUUID();
    static TestUpstream upstream;
    static RunningProxy proxy;
    static ListAppender<ILoggingEvent> calls = new ListAppender<>();
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() throws Exception {
        ((Logger) LoggerFactory.getLogger("idemproxy.calls")).addAppender(calls);
        calls.start();
        upstream = TestUpstream.start();
        proxy = RunningProxy.start(""
                + "routes:\n"
                + "  - name: orders\n"
                + "    match: { pathPrefix: /orders }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    tags: [idempotent]\n"
                + "    timeouts: { perTry: 300ms, total: 5s }\n"
                + "    retry: { maxAttempts: 2, backoff: { initial: 10ms, max: 10ms, jitter: none } }\n"
                + "    ids: { bizId: [header:X-Biz-Id, body:/orderId] }\n"
                + "    idempotency: { enabled: true }\n"
                + "  - name: slowpost\n"
                + "    match: { pathPrefix: /slowpost }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    timeouts: { perTry: 200ms, total: 5s }\n"
                + "    idempotency: { enabled: true }\n"
                + "  - name: files\n"
                + "    match: { pathPrefix: /files }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "  - name: quiet\n"
                + "    match: { pathPrefix: /quiet }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    log: { passThrough: false }\n");
    }

    @AfterAll
    static void stop() {
        proxy.close();
        upstream.close();
        ((Logger) LoggerFactory.getLogger("idemproxy.calls")).detachAppender(calls);
    }

    static HttpResponse<String> post(String path, String key, String body) throws Exception {
        return client.send(HttpRequest.newBuilder(proxy.uri(path)).header("Idempotency-Key", key)
                .header("Authorization", SECRET).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static String get(java.net.URI uri) throws Exception {
        return client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void aPassThroughCallLogsOneLineUnlessItsRouteSaysOtherwise() throws Exception {
        String mark = UUID.randomUUID().toString();
        upstream.enqueue(respond(200, "a file"), respond(200, "another"), respond(404, "none"));
        assertThat(client.send(HttpRequest.newBuilder(proxy.uri("/files/" + mark)).header("Authorization", SECRET).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        assertThat(get(proxy.uri("/quiet/" + mark))).isEqualTo("another");
        assertThat(client.send(HttpRequest.newBuilder(proxy.uri("/files/gone-" + mark)).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(404);

        // A line is logged after the response is written: wait until the third call's is there.
        Await.until("two call lines of route files", Duration.ofSeconds(5), () -> lines("route=files").size() >= 2);
        List<ILoggingEvent> files = lines("route=files");
        assertThat(files).hasSize(2);
        assertThat(files).allSatisfy(e -> assertThat(e.getLevel()).isEqualTo(ch.qos.logback.classic.Level.INFO));
        assertThat(files.get(0).getFormattedMessage()).startsWith("[call=-][biz=-][try=1] route=files key=- status=200 outcome=forwarded ms=");
        assertThat(files.get(1).getFormattedMessage()).contains(" status=404 outcome=forwarded ms=");
        assertThat(lines("route=quiet")).isEmpty();
        assertThat(get(proxy.admin("/metrics"))).contains("idemproxy_requests_total{outcome=\"forwarded\",route=\"quiet\"} 1.0");
        assertThat(files).allSatisfy(e -> assertThat(e.getFormattedMessage()).doesNotContain(SECRET.substring(7)));
    }

    private static List<ILoggingEvent> lines(String containing) {
        synchronized (calls) {
            return List.copyOf(calls.list).stream().filter(e -> e.getFormattedMessage().contains(containing))
                    .collect(Collectors.toList());
        }
    }

    @Test
    void metricsLogsAndReceiptsTellTheStoryWithoutSecrets() throws Exception {
        String key = UUID.randomUUID().toString();
        upstream.enqueue(respond(503, "busy"), respond(201, "{\"ok\":true}"));
        HttpResponse<String> first = post("/orders", key, "{\"orderId\":\"ord-77\"}");
        HttpResponse<String> replay = post("/orders", key, "{\"orderId\":\"ord-77\"}");
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        upstream.enqueue(delayHead(Duration.ofSeconds(1), respond(200, "late")));
        HttpResponse<String> ambiguous = post("/slowpost", UUID.randomUUID().toString(), "{\"orderId\":\"ord-78\"}");
        assertThat(ambiguous.statusCode()).isEqualTo(504);

        String metrics = get(proxy.admin("/metrics"));
        assertThat(metrics)
                .contains("idemproxy_requests_total{outcome=\"executed\",route=\"orders\"} 1.0")
                .contains("idemproxy_requests_total{outcome=\"replayed\",route=\"orders\"} 1.0")
                .contains("idemproxy_requests_total{outcome=\"failed\",route=\"slowpost\"} 1.0")
                .contains("idemproxy_replays_total{route=\"orders\"} 1.0")
                .contains("idemproxy_retries_total{reason=\"503\",route=\"orders\"} 1.0")
                .contains("idemproxy_upstream_attempts_total{result=\"5xx\",route=\"orders\"} 1.0")
                .contains("idemproxy_upstream_attempts_total{result=\"2xx\",route=\"orders\"} 1.0")
                .contains("idemproxy_upstream_attempts_total{result=\"read-timeout\",route=\"slowpost\"} 1.0")
                .contains("idemproxy_upstream_duration_seconds_bucket{route=\"orders\"")
                .contains("idemproxy_store_duration_seconds_count{op=\"claim\"}")
                .contains("idemproxy_dlq_entries 1.0");

        String callId = first.headers().firstValue("X-Call-Id").orElseThrow();
        List<String> lines = calls.list.stream().map(ILoggingEvent::getFormattedMessage).collect(Collectors.toList());
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("[call=" + callId + "][biz=ord-77][try=2] route=orders key="
                + key + " status=201 outcome=executed ms="));
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("route=orders").contains("outcome=replayed"));
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("route=slowpost").contains("status=504").contains("outcome=failed"));

        String receipt = get(proxy.admin("/receipts/" + callId));
        String dlq = get(proxy.admin("/dlq"));
        String allLogs = String.join("\n", lines);
        for (String text : List.of(allLogs, metrics, receipt, dlq)) {
            assertThat(text).doesNotContain(SECRET.substring(7));
        }
    }

    static final List<String> STORE_OPS = List.of("claim", "renew", "complete", "release", "evict", "get", "receipt_put",
            "receipt_get", "dlq_add", "dlq_list", "dlq_get", "dlq_delete", "dlq_count", "task_charge", "task_get");

    @Test
    void everyContractMetricIsScrapedFromTheStartAndRoutesAddedByAReloadGetTheirSeries(@TempDir Path data) throws Exception {
        String store = "store: { type: embedded, embedded: { path: \"" + data + "\" } }\n";
        String routes = ""
                + "routes:\n"
                + "  - name: orders\n"
                + "    match: { pathPrefix: /orders }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    retry: { maxAttempts: 3, retryOn: [connect-failure, 503] }\n"
                + "    idempotency: { enabled: true }\n"
                + "  - name: files\n"
                + "    upstream: " + upstream.uri() + "\n";
        try (RunningProxy fresh = RunningProxy.start(store, routes)) {
            upstream.enqueue(respond(201, "{}"));
            HttpResponse<String> ordinary = client.send(HttpRequest.newBuilder(fresh.uri("/orders"))
                    .header("Idempotency-Key", UUID.randomUUID().toString())
                    .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(ordinary.statusCode()).isEqualTo(201);

            String metrics = get(fresh.admin("/metrics"));
            for (String name : List.of("idemproxy_requests_total", "idemproxy_replays_total", "idemproxy_key_conflicts_total",
                    "idemproxy_upstream_attempts_total", "idemproxy_retries_total", "idemproxy_retry_budget_exhausted_total",
                    "idemproxy_dlq_entries", "idemproxy_upstream_duration_seconds", "idemproxy_store_duration_seconds",
                    "idemproxy_store_errors_total", "idemproxy_config_reload_failures_total")) {
                assertThat(metrics).as(name).contains("\n" + name);
            }
            for (String route : List.of("orders", "files")) {
                assertThat(metrics)
                        .contains("idemproxy_replays_total{route=\"" + route + "\"} 0.0")
                        .contains("idemproxy_key_conflicts_total{kind=\"in_flight\",route=\"" + route + "\"} 0.0")
                        .contains("idemproxy_key_conflicts_total{kind=\"payload_mismatch\",route=\"" + route + "\"} 0.0")
                        .contains("idemproxy_retry_budget_exhausted_total{budget=\"task\",route=\"" + route + "\"} 0.0")
                        .contains("idemproxy_retry_budget_exhausted_total{budget=\"route\",route=\"" + route + "\"} 0.0");
            }
            assertThat(series(metrics, "idemproxy_retries_total{")).containsExactlyInAnyOrder(
                    "idemproxy_retries_total{reason=\"connect-failure\",route=\"orders\"} 0.0",
                    "idemproxy_retries_total{reason=\"reset-before-request\",route=\"orders\"} 0.0",
                    "idemproxy_retries_total{reason=\"retry_after\",route=\"orders\"} 0.0",
                    "idemproxy_retries_total{reason=\"503\",route=\"orders\"} 0.0",
                    // files keeps the default retryOn (its maxAttempts of 1 never uses it)
                    "idemproxy_retries_total{reason=\"connect-failure\",route=\"files\"} 0.0",
                    "idemproxy_retries_total{reason=\"reset-before-request\",route=\"files\"} 0.0",
                    "idemproxy_retries_total{reason=\"read-timeout\",route=\"files\"} 0.0",
                    "idemproxy_retries_total{reason=\"reset\",route=\"files\"} 0.0",
                    "idemproxy_retries_total{reason=\"retry_after\",route=\"files\"} 0.0",
                    "idemproxy_retries_total{reason=\"429\",route=\"files\"} 0.0",
                    "idemproxy_retries_total{reason=\"502\",route=\"files\"} 0.0",
                    "idemproxy_retries_total{reason=\"503\",route=\"files\"} 0.0",
                    "idemproxy_retries_total{reason=\"504\",route=\"files\"} 0.0");
            assertThat(series(metrics, "idemproxy_store_errors_total{")).containsExactlyInAnyOrderElementsOf(
                    STORE_OPS.stream().map(op -> "idemproxy_store_errors_total{op=\"" + op + "\"} 0.0").collect(Collectors.toList()));

            fresh.rewrite(routes
                    + "  - name: added\n"
                    + "    match: { pathPrefix: /added }\n"
                    + "    upstream: " + upstream.uri() + "\n"
                    + "    retry: { maxAttempts: 2, retryOn: [reset] }\n");
            assertThat(fresh.assembly.reload()).isTrue();
            String reloaded = get(fresh.admin("/metrics"));
            assertThat(reloaded)
                    .contains("idemproxy_key_conflicts_total{kind=\"in_flight\",route=\"added\"} 0.0")
                    .contains("idemproxy_retry_budget_exhausted_total{budget=\"route\",route=\"added\"} 0.0")
                    .contains("idemproxy_retries_total{reason=\"reset\",route=\"added\"} 0.0")
                    .contains("idemproxy_retries_total{reason=\"reset-before-request\",route=\"added\"} 0.0");
            assertThat(series(reloaded, "idemproxy_retries_total{")).filteredOn(l -> l.contains("route=\"added\"")).hasSize(2);

            // Reloading the same routes again adds no series: the count is bounded by the config.
            assertThat(fresh.assembly.reload()).isTrue();
            assertThat(series(get(fresh.admin("/metrics")), "idemproxy_")).hasSameSizeAs(series(reloaded, "idemproxy_"));
        }
    }

    /** The sample lines of {@code metrics} that start with {@code prefix}. */
    private static List<String> series(String metrics, String prefix) {
        return metrics.lines().filter(l -> l.startsWith(prefix)).collect(Collectors.toList());
    }
}
