package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.delayHead;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static dev.idemproxy.core.testing.UpstreamAction.retryAfter;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RecordedRequest;
import dev.idemproxy.core.testing.TestUpstream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Retries on the wire: what is retried, with which headers, and what is never re-executed. */
@ExtendWith(LeakDetection.class)
class RetryIT {
    static TestUpstream upstream;
    static RunningProxy proxy;
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
        String retry = "    retry: { maxAttempts: 3, backoff: { initial: 10ms, max: 50ms, jitter: none } }\n";
        proxy = RunningProxy.start(""
                + "routes:\n"
                + "  - name: tagged\n"
                + "    match: { pathPrefix: /tagged }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    tags: [idempotent]\n"
                + "    timeouts: { perTry: 300ms, total: 5s }\n"
                + retry
                + "  - name: recorded\n"
                + "    match: { pathPrefix: /recorded }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    timeouts: { perTry: 300ms, total: 5s }\n"
                + "    idempotency: { enabled: true }\n"
                + retry
                + "  - name: plain\n"
                + "    match: { pathPrefix: /plain }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    timeouts: { perTry: 300ms, total: 5s }\n"
                + retry
                + "  - name: overloaded\n"
                + "    match: { pathPrefix: /overloaded }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    notExecutedOn: [503, 529]\n"
                + "    idempotency: { enabled: true }\n"
                + retry
                + "  - name: overloaded-once\n"
                + "    match: { pathPrefix: /once-overloaded }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    notExecutedOn: [529]\n"
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

    static HttpResponse<String> post(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(proxy.uri(path)).POST(HttpRequest.BodyPublishers.ofString("{\"a\":1}"))
                .header("Content-Type", "application/json").build(), HttpResponse.BodyHandlers.ofString());
    }

    List<RecordedRequest> seen(int n) throws InterruptedException {
        return upstream.awaitRequests(before + n, Duration.ofSeconds(5)).subList(before, before + n);
    }

    @Test
    void aRetryOnlyRouteSendsTheClientsKeyUnchangedOnEveryAttempt() throws Exception {
        // No idempotency record on this route, but the client's key is its own: replacing it by a
        // generated one per call would defeat an upstream that deduplicates the client's retries.
        upstream.enqueue(respond(503, "busy"), respond(200, "done"));
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(proxy.uri("/tagged/own-key"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).header("Idempotency-Key", "client-key-7").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        List<RecordedRequest> s = seen(2);
        assertThat(s.get(0).header("Idempotency-Key")).isEqualTo("client-key-7");
        assertThat(s.get(1).header("Idempotency-Key")).isEqualTo("client-key-7");
        assertThat(s.get(1).header("X-Attempt")).isEqualTo("2");
    }

    @Test
    void aRetryOnlyRouteGeneratesOneKeyPerCallWhenTheClientSentNone() throws Exception {
        upstream.enqueue(respond(503, "busy"), respond(200, "done"));
        assertThat(post("/tagged/no-key").statusCode()).isEqualTo(200);
        List<RecordedRequest> s = seen(2);
        assertThat(s.get(0).header("Idempotency-Key")).startsWith("g-");
        assertThat(s.get(1).header("Idempotency-Key")).isEqualTo(s.get(0).header("Idempotency-Key"));
    }

    @Test
    void status503OnTaggedRouteIsRetriedWithTheSameKeyAndCallId() throws Exception {
        upstream.enqueue(respond(503, "busy"), respond(200, "done"));
        HttpResponse<String> r = post("/tagged/a");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("done");
        assertThat(r.headers().firstValue("X-Attempts")).hasValue("2");
        List<RecordedRequest> attempts = seen(2);
        assertThat(attempts).extracting(a -> a.header("X-Attempt")).containsExactly("1", "2");
        assertThat(attempts.get(0).header("X-Call-Id")).isNotBlank().isEqualTo(attempts.get(1).header("X-Call-Id"))
                .isEqualTo(r.headers().firstValue("X-Call-Id").orElseThrow());
        assertThat(attempts.get(0).header("Idempotency-Key")).isNotBlank().isEqualTo(attempts.get(1).header("Idempotency-Key"));
        assertThat(attempts).allSatisfy(a -> assertThat(a.bodyAsString()).isEqualTo("{\"a\":1}"));
        assertThat(Long.parseLong(attempts.get(1).header("X-Request-Timeout-Ms"))).isBetween(1L, 5000L);
    }

    @Test
    void status503OnUntaggedPostIsNotReExecuted() throws Exception {
        upstream.enqueue(respond(503, "busy"));
        HttpResponse<String> r = post("/plain/a");
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.headers().firstValue("X-Attempts")).hasValue("1");
        assertOnlyOneAttemptReachedTheUpstream();
    }

    /** A marker call after the one under test: had the proxy retried, the upstream would count more. */
    void assertOnlyOneAttemptReachedTheUpstream() throws Exception {
        upstream.enqueue(respond(200, "marker"));
        assertThat(post("/tagged/marker").body()).isEqualTo("marker");
        assertThat(upstream.requestCount()).isEqualTo(before + 2);
    }

    @Test
    void readTimeoutOnUntaggedPostIs504AmbiguousOutcomeAfterOneAttempt() throws Exception {
        upstream.enqueue(delayHead(Duration.ofSeconds(2), respond(200, "late")));
        HttpResponse<String> r = post("/plain/slow");
        assertThat(r.statusCode()).isEqualTo(504);
        assertThat(r.body()).contains("urn:idemproxy:problem:ambiguous-outcome");
        assertThat(r.headers().firstValue("X-Attempts")).hasValue("1");
    }

    @Test
    void ambiguousTimeoutIsStoredAndItsDuplicateNeverReachesTheUpstream() throws Exception {
        upstream.enqueue(delayHead(Duration.ofSeconds(2), respond(200, "late")));
        String key = java.util.UUID.randomUUID().toString();
        HttpResponse<String> first = client.send(HttpRequest.newBuilder(proxy.uri("/recorded/charge"))
                .header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.ofString("{\"amount\":5}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(first.statusCode()).isEqualTo(504);
        assertThat(first.body()).contains("urn:idemproxy:problem:ambiguous-outcome");
        HttpResponse<String> dup = client.send(HttpRequest.newBuilder(proxy.uri("/recorded/charge"))
                .header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.ofString("{\"amount\":5}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(dup.statusCode()).isEqualTo(504);
        assertThat(dup.body()).isEqualTo(first.body());
        assertThat(dup.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(dup.headers().firstValue("X-Call-Id")).isEqualTo(first.headers().firstValue("X-Call-Id"));
        assertOnlyOneAttemptReachedTheUpstream();
    }

    @Test
    void readTimeoutOnTaggedRouteIsRetried() throws Exception {
        upstream.enqueue(delayHead(Duration.ofSeconds(2), respond(200, "late")), respond(200, "second"));
        HttpResponse<String> r = post("/tagged/slow");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("second");
        assertThat(seen(2)).extracting(a -> a.header("X-Attempt")).containsExactly("1", "2");
    }

    @Test
    void status429WithRetryAfterIsWaitedAndRetriedEvenOnUntaggedRoutes() throws Exception {
        upstream.enqueue(retryAfter(429, "0"), respond(201, "created"));
        HttpResponse<String> r = post("/plain/limited");
        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(r.headers().firstValue("X-Attempts")).hasValue("2");
    }

    static HttpResponse<String> post(String path, String key) throws Exception {
        return client.send(HttpRequest.newBuilder(proxy.uri(path)).header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"a\":1}")).header("Content-Type", "application/json").build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void a503OfAnUntaggedPostIsStoredAndReplayedWhenTheRouteSaysNothingOfIt() throws Exception {
        upstream.enqueue(respond(503, "busy"));
        String key = java.util.UUID.randomUUID().toString();
        assertThat(post("/recorded/a", key).statusCode()).isEqualTo(503);
        HttpResponse<String> dup = post("/recorded/a", key);
        assertThat(dup.statusCode()).isEqualTo(503);
        assertThat(dup.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertOnlyOneAttemptReachedTheUpstream();
    }

    @Test
    void aStatusInNotExecutedOnIsRetriedOnAnUntaggedPostAndOnlyTheSuccessIsStored() throws Exception {
        upstream.enqueue(respond(503, "overloaded"), respond(503, "overloaded"), respond(201, "created"));
        String key = java.util.UUID.randomUUID().toString();
        HttpResponse<String> r = post("/overloaded/a", key);
        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(r.headers().firstValue("X-Attempts")).hasValue("3");
        assertThat(seen(3)).extracting(a -> a.header("Idempotency-Key")).containsOnly(key);
        HttpResponse<String> dup = post("/overloaded/a", key);
        assertThat(dup.statusCode()).isEqualTo(201);
        assertThat(dup.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(upstream.requestCount()).isEqualTo(before + 3);
    }

    @Test
    void aStatusInNotExecutedOnThatIsNotRetriedReleasesTheKeySoTheDuplicateExecutes() throws Exception {
        upstream.enqueue(respond(529, "overloaded"), respond(201, "created"));
        String key = java.util.UUID.randomUUID().toString();
        HttpResponse<String> first = post("/once-overloaded/a", key);
        assertThat(first.statusCode()).isEqualTo(529);
        assertThat(first.headers().firstValue("X-Attempts")).hasValue("1");
        HttpResponse<String> dup = post("/once-overloaded/a", key);
        assertThat(dup.statusCode()).isEqualTo(201);
        assertThat(dup.body()).isEqualTo("created");
        assertThat(dup.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(upstream.requestCount()).isEqualTo(before + 2);
    }

    @Test
    void status400IsNeverRetried() throws Exception {
        upstream.enqueue(respond(400, "bad"));
        HttpResponse<String> r = post("/tagged/bad");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.headers().firstValue("X-Attempts")).hasValue("1");
        assertOnlyOneAttemptReachedTheUpstream();
    }
}
