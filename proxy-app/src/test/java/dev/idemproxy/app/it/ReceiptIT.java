package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.delayHead;
import static dev.idemproxy.core.testing.UpstreamAction.dynamic;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RecordedRequest;
import dev.idemproxy.core.testing.TestUpstream;
import dev.idemproxy.core.testing.UpstreamAction;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** "Query the receipt before retrying": each receipt answer, on an untagged POST route. */
@ExtendWith(LeakDetection.class)
class ReceiptIT {
    static TestUpstream upstream;
    static RunningProxy proxy;
    static final Deque<UpstreamAction> orders = new ArrayDeque<>();
    static final Deque<UpstreamAction> receipts = new ArrayDeque<>();
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static final Map<String, String> JSON = Map.of("Content-Type", "application/json");

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
        upstream.defaultAction(dynamic(r -> {
            synchronized (orders) {
                UpstreamAction a = (r.path().startsWith("/receipts/") ? receipts : orders).poll();
                return a != null ? a : respond(500, "unscripted " + r.path());
            }
        }));
        proxy = RunningProxy.start(""
                + "routes:\n"
                + "  - name: orders\n"
                + "    match: { pathPrefix: /orders }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    timeouts: { perTry: 300ms, total: 10s }\n"
                + "    idempotency: { enabled: true }\n"
                + "    retry: { maxAttempts: 3, backoff: { initial: 20ms, max: 50ms, jitter: none } }\n"
                + "    receipt:\n"
                + "      url: \"" + upstream.uri() + "/receipts/{callId}?key={key}\"\n");
    }

    @AfterAll
    static void stop() {
        proxy.close();
        upstream.close();
    }

    int before;

    @BeforeEach
    void reset() {
        synchronized (orders) {
            orders.clear();
            receipts.clear();
        }
        before = upstream.requestCount();
    }

    static void script(List<UpstreamAction> o, List<UpstreamAction> r) {
        synchronized (orders) {
            orders.addAll(o);
            receipts.addAll(r);
        }
    }

    static HttpResponse<String> post(String key) throws Exception {
        return client.send(HttpRequest.newBuilder(proxy.uri("/orders")).header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":1}")).build(), HttpResponse.BodyHandlers.ofString());
    }

    List<String> paths() {
        return upstream.requests().subList(before, upstream.requestCount()).stream().map(RecordedRequest::path)
                .collect(Collectors.toList());
    }

    static UpstreamAction late() {
        return delayHead(Duration.ofSeconds(2), respond(201, "late"));
    }

    @Test
    void successAnswersFromTheReceiptsResultAndIsReplayed() throws Exception {
        script(List.of(late()), List.of(respond(200, JSON, "{\"status\":\"SUCCESS\",\"result\":{\"id\":\"o-1\"}}")));
        String key = UUID.randomUUID().toString();
        HttpResponse<String> r = post(key);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"id\":\"o-1\"}");
        RecordedRequest q = upstream.request(before + 1);
        assertThat(q.uri()).isEqualTo("/receipts/" + r.headers().firstValue("X-Call-Id").orElseThrow() + "?key=" + key);
        HttpResponse<String> dup = post(key);
        assertThat(dup.body()).isEqualTo("{\"id\":\"o-1\"}");
        assertThat(dup.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(paths()).containsExactly("/orders", "/receipts/" + r.headers().firstValue("X-Call-Id").orElseThrow());
    }

    @Test
    void notFoundRetriesWithTheSameKeyAndCallId() throws Exception {
        script(List.of(late(), respond(201, "created on retry")), List.of(respond(404, "nope")));
        HttpResponse<String> r = post(UUID.randomUUID().toString());
        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(r.body()).isEqualTo("created on retry");
        List<RecordedRequest> seen = upstream.requests().subList(before, before + 3);
        assertThat(seen).extracting(RecordedRequest::path).containsExactly("/orders", "/receipts/" + r.headers().firstValue("X-Call-Id").get(), "/orders");
        assertThat(seen.get(0).header("Idempotency-Key")).isEqualTo(seen.get(2).header("Idempotency-Key"));
        assertThat(seen.get(0).header("X-Call-Id")).isEqualTo(seen.get(2).header("X-Call-Id"));
        assertThat(seen.get(2).header("X-Attempt")).isEqualTo("2");
    }

    @Test
    void processingIsPolledUntilSuccess() throws Exception {
        script(List.of(late()), List.of(respond(200, JSON, "{\"status\":\"PROCESSING\"}"),
                respond(200, JSON, "{\"status\":\"PROCESSING\"}"),
                respond(200, JSON, "{\"status\":\"SUCCESS\",\"result\":{\"id\":\"o-3\"}}")));
        HttpResponse<String> r = post(UUID.randomUUID().toString());
        assertThat(r.body()).isEqualTo("{\"id\":\"o-3\"}");
        assertThat(paths()).hasSize(4);
    }

    @Test
    void failedEndsTheCallWith502AndADeadLetter() throws Exception {
        script(List.of(late()), List.of(respond(200, JSON, "{\"status\":\"FAILED\"}")));
        HttpResponse<String> r = post(UUID.randomUUID().toString());
        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.body()).contains("urn:idemproxy:problem:upstream-failed");
        assertThat(paths()).hasSize(2);
    }

    @Test
    void unreadableReceiptIsTriedThreeTimesThenTheOutcomeStaysAmbiguous() throws Exception {
        script(List.of(late()), List.of(respond(500, "x"), respond(503, "y"), respond(200, JSON, "not json")));
        String key = UUID.randomUUID().toString();
        HttpResponse<String> r = post(key);
        assertThat(r.statusCode()).isEqualTo(504);
        assertThat(r.body()).contains("urn:idemproxy:problem:ambiguous-outcome").contains("receipt unresolved");
        assertThat(paths()).hasSize(4);
        HttpResponse<String> dup = post(key);
        assertThat(dup.statusCode()).isEqualTo(504);
        assertThat(dup.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(upstream.requestCount()).isEqualTo(before + 4);
    }
}
