package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.after;
import static dev.idemproxy.core.testing.UpstreamAction.delayHead;
import static dev.idemproxy.core.testing.UpstreamAction.resetAfterRequest;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.app.cli.VersionProvider;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.testing.FreePorts;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.TestUpstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * docs/metrics.md's shape of the exposition, scraped from {@code /metrics} of a running proxy: short
 * fixed bucket lists, HELP text on every family, one spelling per label value (the config's, for
 * each failure kind provoked here), {@code idemproxy_build_info} and {@code idemproxy_in_flight}.
 */
@ExtendWith(LeakDetection.class)
class MetricsScrapeIT {
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static final Pattern BUCKET = Pattern.compile("^(\\w+)_bucket\\{(.*)le=\"([^\"]+)\"(.*)} ", Pattern.MULTILINE);
    /** An underscore spelling of a config word, as the retries family once had. */
    static final Pattern OLD_SPELLING = Pattern.compile("=\"(connect_failure|read_timeout|idle_timeout|reset_before_request"
            + "|status_\\d+)\"");

    static TestUpstream upstream;
    static RunningProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
        int nothingListens = FreePorts.pick();
        proxy = RunningProxy.start(""
                + "routes:\n"
                + "  - name: flaky\n"
                + "    match: { pathPrefix: /flaky }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    tags: [idempotent]\n"
                + "    timeouts: { perTry: 300ms, total: 20s }\n"
                + "    retry: { maxAttempts: 2, retryOn: [connect-failure, read-timeout, idle-timeout, reset, 503],"
                + " backoff: { initial: 10ms, max: 10ms, jitter: none } }\n"
                + "    idempotency: { enabled: true }\n"
                + "  - name: down\n"
                + "    match: { pathPrefix: /down }\n"
                + "    upstream: http://127.0.0.1:" + nothingListens + "\n"
                + "    retry: { maxAttempts: 2, retryOn: [connect-failure], backoff: { initial: 10ms, max: 10ms, jitter: none } }\n"
                + "    idempotency: { enabled: true }\n"
                + "  - name: plain\n"
                + "    match: { pathPrefix: /plain }\n"
                + "    upstream: " + upstream.uri() + "\n");
    }

    @AfterAll
    static void stop() {
        proxy.close();
        upstream.close();
    }

    @Test
    void everyHistogramSeriesHasItsFamilysTwelveBucketsAndEveryFamilyHasHelp() throws Exception {
        upstream.enqueue(respond(201, "{}"));
        assertThat(post("/flaky/h").statusCode()).isEqualTo(201);

        String text = scrape();
        Map<String, List<Double>> bounds = finiteBounds(text);
        assertThat(bounds.keySet()).anyMatch(s -> s.startsWith("idemproxy_upstream_duration_seconds{route=\"flaky\""))
                .anyMatch(s -> s.startsWith("idemproxy_store_duration_seconds{op=\"claim\""));
        bounds.forEach((series, les) -> {
            if (series.startsWith("idemproxy_upstream_duration_seconds")) {
                assertThat(les).as(series).containsExactlyElementsOf(seconds(ProxyMetrics.UPSTREAM_BUCKETS));
            } else if (series.startsWith("idemproxy_store_duration_seconds")) {
                assertThat(les).as(series).containsExactlyElementsOf(seconds(ProxyMetrics.STORE_BUCKETS));
            } else {
                assertThat(les).as(series).hasSizeLessThanOrEqualTo(12);
            }
        });

        List<String> families = text.lines().filter(l -> l.startsWith("# TYPE ")).map(l -> l.split(" ")[2]).toList();
        assertThat(families).contains("idemproxy_requests_total", "idemproxy_in_flight", "idemproxy_build_info",
                "jvm_memory_used_bytes", "netty_allocator_memory_used");
        for (String family : families) {
            String help = text.lines().filter(l -> l.startsWith("# HELP " + family + " ")).findFirst().orElse("# HELP " + family + " ");
            assertThat(help.substring(("# HELP " + family + " ").length())).as("HELP of %s", family).isNotBlank();
        }
    }

    @Test
    void eachFailureKindIsSpelledAsTheConfigSpellsItInEveryFamily() throws Exception {
        upstream.enqueue(respond(503, "busy"), respond(201, "{}"));
        assertThat(post("/flaky/503").statusCode()).isEqualTo(201);
        upstream.enqueue(delayHead(Duration.ofSeconds(2), respond(200, "late")), respond(201, "{}"));
        assertThat(post("/flaky/read-timeout").statusCode()).isEqualTo(201);
        upstream.enqueue(resetAfterRequest(), respond(201, "{}"));
        assertThat(post("/flaky/reset").statusCode()).isEqualTo(201);
        assertThat(post("/down/connect-failure").statusCode()).isEqualTo(502);

        String text = scrape();
        assertThat(text)
                .contains("idemproxy_retries_total{reason=\"503\",route=\"flaky\"} 1.0")
                .contains("idemproxy_upstream_attempts_total{result=\"5xx\",route=\"flaky\"} 1.0")
                .contains("idemproxy_retries_total{reason=\"read-timeout\",route=\"flaky\"} 1.0")
                .contains("idemproxy_upstream_attempts_total{result=\"read-timeout\",route=\"flaky\"} 1.0")
                .contains("idemproxy_retries_total{reason=\"reset\",route=\"flaky\"} 1.0")
                .contains("idemproxy_upstream_attempts_total{result=\"reset\",route=\"flaky\"} 1.0")
                .contains("idemproxy_retries_total{reason=\"connect-failure\",route=\"down\"} 1.0")
                .contains("idemproxy_upstream_attempts_total{result=\"connect-failure\",route=\"down\"} 2.0")
                // listed in retryOn, never provoked: registered at 0 in the same spelling
                .contains("idemproxy_retries_total{reason=\"idle-timeout\",route=\"flaky\"} 0.0");
        assertThat(OLD_SPELLING.matcher(text).results().map(MatchResult::group).toList())
                .as("label values spelled otherwise than the config").isEmpty();
    }

    @Test
    void buildInfoCarriesTheVersion() throws Exception {
        assertThat(scrape()).contains("idemproxy_build_info{version=\"" + VersionProvider.version() + "\"} 1");
    }

    @Test
    void aHeldCallIsInFlightUntilItsAnswerHasGone() throws Exception {
        assertThat(scrape()).contains("idemproxy_in_flight{route=\"plain\"} 0.0", "idemproxy_in_flight{route=\"flaky\"} 0.0");
        CompletableFuture<Void> gate = new CompletableFuture<>();
        upstream.enqueue(after(gate, respond(200, "held")));
        int seen = upstream.requestCount();
        CompletableFuture<HttpResponse<String>> call = client.sendAsync(HttpRequest.newBuilder(proxy.uri("/plain/held")).build(),
                HttpResponse.BodyHandlers.ofString());
        upstream.awaitRequests(seen + 1, Duration.ofSeconds(10));

        assertThat(scrape()).contains("idemproxy_in_flight{route=\"plain\"} 1.0");

        gate.complete(null);
        assertThat(call.get(10, TimeUnit.SECONDS).body()).isEqualTo("held");
        awaitScrapeContains("idemproxy_in_flight{route=\"plain\"} 0.0");
    }

    private static HttpResponse<String> post(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(proxy.uri(path)).header("Idempotency-Key", UUID.randomUUID().toString())
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String scrape() throws Exception {
        URI uri = proxy.admin("/metrics");
        return client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    /** Polls {@code /metrics} until it has {@code line}: the gauge drops just after the answer's last write. */
    private static void awaitScrapeContains(String line) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String text = scrape();
        while (!text.contains(line) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            text = scrape();
        }
        assertThat(text).contains(line);
    }

    /** Each histogram series (its name and labels without {@code le}) and its finite bucket bounds, in order. */
    private static Map<String, List<Double>> finiteBounds(String text) {
        Map<String, List<Double>> out = new LinkedHashMap<>();
        Matcher m = BUCKET.matcher(text);
        while (m.find()) {
            if (!m.group(3).equals("+Inf")) {
                out.computeIfAbsent(m.group(1) + "{" + m.group(2) + m.group(4) + "}", k -> new ArrayList<>())
                        .add(Double.parseDouble(m.group(3)));
            }
        }
        return out;
    }

    private static List<Double> seconds(List<Duration> bounds) {
        return bounds.stream().map(d -> d.toNanos() / 1e9).toList();
    }
}
