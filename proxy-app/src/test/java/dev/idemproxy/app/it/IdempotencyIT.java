package dev.idemproxy.app.it;

import dev.idemproxy.core.testing.Await;

import static dev.idemproxy.core.testing.UpstreamAction.delayHead;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RawHttp;
import dev.idemproxy.core.testing.TestUpstream;
import dev.idemproxy.core.testing.UpstreamAction;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Idempotency at the wire, on the memory store: one execution per key, byte-exact replays. */
@ExtendWith(LeakDetection.class)
class IdempotencyIT {
    static TestUpstream upstream;
    static RunningProxy proxy;
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
        proxy = RunningProxy.start(""
                + "secretHeaders: [X-Auth-Token]\n"
                + "routes:\n"
                + "  - name: tickets\n"
                + "    match: { pathPrefix: /tickets }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    timeouts: { perTry: 5s, total: 10s }\n"
                + "    idempotency:\n"
                + "      enabled: true\n"
                + "      waitTimeout: 5s\n"
                + "      maxRequestBody: 1KiB\n"
                + "  - name: strict\n"
                + "    match: { pathPrefix: /strict }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true, onConcurrent: reject, key: { required: true, derive: [] } }\n"
                + "  - name: derived\n"
                + "    match: { pathPrefix: /derived }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true, key: { derive: [method, path, body:/userId, body:/op] } }\n"
                + "  - name: windowed\n"
                + "    match: { pathPrefix: /windowed }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true, key: { derive: [body:/userId], window: 500ms } }\n"
                + "  - name: heads\n"
                + "    match: { pathPrefix: /heads }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true, methods: [GET, HEAD] }\n"
                + "  - name: leased\n"
                + "    match: { pathPrefix: /leased }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true, lease: 300ms, waitTimeout: 10s }\n"
                + "  - name: shortwait\n"
                + "    match: { pathPrefix: /shortwait }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true, waitTimeout: 300ms }\n"
                + "  - name: custom\n"
                + "    match: { pathPrefix: /custom }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true, key: { header: X-Request-Key } }\n"
                + "  - name: underived\n"
                + "    match: { pathPrefix: /underived }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true, key: { derive: [] } }\n"
                + "  - name: tenants\n"
                + "    match: { pathPrefix: /tenants }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true, scope: [header:X-Tenant] }\n");
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

    static HttpResponse<String> post(String path, String key, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(proxy.uri(path)).POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json");
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void duplicateOfCompletedCallIsReplayedByteForByteWithoutUpstreamHop() throws Exception {
        String key = UUID.randomUUID().toString();
        upstream.enqueue(respond(201, Map.of("X-Ticket", "T-1", "Content-Type", "application/json"), "{\"id\":\"T-1\"}"));
        HttpResponse<String> first = post("/tickets", key, "{\"title\":\"printer\"}");
        HttpResponse<String> second = post("/tickets", key, "{\"title\":\"printer\"}");
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(second.body()).isEqualTo(first.body()).isEqualTo("{\"id\":\"T-1\"}");
        assertThat(second.headers().firstValue("X-Ticket")).hasValue("T-1");
        assertThat(second.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(second.headers().firstValue("X-Call-Id")).isEqualTo(first.headers().firstValue("X-Call-Id"));
        assertThat(second.headers().firstValue("X-Attempts")).hasValue("1");
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
        assertThat(upstream.request(before).header("Idempotency-Key")).isEqualTo(key);
    }

    @Test
    void aReplayHasTheFirstResponsesHeaderLinesInTheirOrderAndSpelling() throws Exception {
        String key = UUID.randomUUID().toString();
        Map<String, String> headers = new java.util.LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Content-Length", "11");  // mid-head, as many servers spell it
        headers.put("X-Ticket", "T-9");
        upstream.enqueue(respond(201, headers, "{\"id\":\"T9\"}"));
        String request = "POST /tickets HTTP/1.1\r\nHost: a\r\nIdempotency-Key: " + key
                + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
        RawHttp.Response first;
        RawHttp.Response replay;
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            first = raw.write(request).readResponse();
            replay = raw.write(request).readResponse();
        }
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(replay.headers().stream().filter(h -> !h.name().equals("Idempotent-Replayed")).map(Object::toString))
                .containsExactlyElementsOf(first.headers().stream().map(Object::toString).toList());
        assertThat(first.headers().stream().map(h -> h.name()).toList())
                .containsSubsequence("Content-Type", "Content-Length", "X-Ticket");
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
    }

    @Test
    void aHeadsRecordIsReplayedOnlyToAHeadWithItsContentLengthAndNeverToAGet() throws Exception {
        String key = UUID.randomUUID().toString();
        // A HEAD's answer: the Content-Length of the body a GET would get, and no body.
        upstream.enqueue(UpstreamAction.respondWithoutLength(200, Map.of("Content-Type", "text/html", "Content-Length", "310")));
        String head = "HEAD /heads/page HTTP/1.1\r\nHost: a\r\nIdempotency-Key: " + key + "\r\n\r\n";
        String get = "GET /heads/page HTTP/1.1\r\nHost: a\r\nIdempotency-Key: " + key + "\r\n\r\n";
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            RawHttp.Response first = raw.write(head).readHeadResponse();
            assertThat(first.status()).isEqualTo(200);
            assertThat(first.header("Content-Length")).isEqualTo("310");
            RawHttp.Response replay = raw.write(head).readHeadResponse();
            assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
            assertThat(replay.header("Content-Length")).isEqualTo("310");
            // Not the HEAD's bodiless record: the same key on a GET is another request.
            RawHttp.Response asGet = raw.write(get).readResponse();
            assertThat(asGet.status()).isEqualTo(422);
            assertThat(asGet.bodyAsString()).contains("urn:idemproxy:problem:key-reused-with-different-payload");
        }
        String other = UUID.randomUUID().toString();
        upstream.enqueue(respond(200, Map.of("Content-Type", "text/plain"), "hello"));
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            assertThat(raw.write(get.replace(key, other)).readResponse().bodyAsString()).isEqualTo("hello");
            assertThat(raw.write(head.replace(key, other)).readHeadResponse().status()).isEqualTo(422);
        }
        assertThat(upstream.requestCount()).isEqualTo(before + 2);
        assertThat(upstream.request(before).method()).isEqualTo("HEAD");
    }

    @Test
    void jsonKeyOrderAndWhitespaceDoNotChangeTheFingerprint() throws Exception {
        String key = UUID.randomUUID().toString();
        upstream.enqueue(respond(200, "once"));
        post("/tickets", key, "{\"a\":1,\"b\":[1,2]}");
        HttpResponse<String> again = post("/tickets", key, "{ \"b\": [1, 2], \"a\": 1 }");
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
    }

    @Test
    void sameKeyWithDifferentPayloadIs422() throws Exception {
        String key = UUID.randomUUID().toString();
        String conflicts = "idemproxy_key_conflicts_total{kind=\"payload_mismatch\",route=\"tickets\"}";
        double counted = metric(conflicts);
        upstream.enqueue(respond(200, "first"));
        post("/tickets", key, "{\"amount\":10}");
        HttpResponse<String> r = post("/tickets", key, "{\"amount\":99}");
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(r.body()).contains("urn:idemproxy:problem:key-reused-with-different-payload");
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
        assertThat(metric(conflicts)).isEqualTo(counted + 1);
    }

    @Test
    void theSameKeyOnAnotherPathOrMethodOfTheRouteIs422NotTheOtherEndpointsResponse() throws Exception {
        String key = UUID.randomUUID().toString();
        upstream.enqueue(respond(201, "ticket T-1"));
        assertThat(post("/tickets", key, "{\"title\":\"printer\"}").statusCode()).isEqualTo(201);
        HttpResponse<String> otherPath = post("/tickets/T-1/comments", key, "{\"title\":\"printer\"}");
        HttpResponse<String> otherMethod = client.send(HttpRequest.newBuilder(proxy.uri("/tickets"))
                .PUT(HttpRequest.BodyPublishers.ofString("{\"title\":\"printer\"}")).header("Content-Type", "application/json")
                .header("Idempotency-Key", key).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(otherPath.statusCode()).isEqualTo(422);
        assertThat(otherPath.body()).contains("urn:idemproxy:problem:key-reused-with-different-payload");
        assertThat(otherMethod.statusCode()).isEqualTo(422);
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
    }

    /**
     * A call that outlives its lease keeps its key: its owner renews the lease while the call is
     * alive, so a duplicate arriving after more than three lease lengths waits for it and is
     * replayed. Were the lease not renewed, that duplicate would take the lapsed claim over, an
     * unknown outcome for a POST (504, never the upstream's answer), and the owner could no longer
     * record its own.
     */
    @Test
    void aCallLongerThanItsLeaseKeepsItsKeyAndItsDuplicateIsReplayed() throws Exception {
        String key = UUID.randomUUID().toString();
        upstream.enqueue(delayHead(Duration.ofMillis(1600), respond(201, "a long call")));
        CompletableFuture<HttpResponse<String>> first = async(() -> post("/leased", key, "{}"));
        upstream.awaitRequests(before + 1, Duration.ofSeconds(5));
        // Three lease lengths and more since the claim pass in real time (the proxy's lease clock),
        // the call still at the upstream.
        Await.realTime(Duration.ofSeconds(1));
        HttpResponse<String> dup = post("/leased", key, "{}");
        assertThat(first.get().statusCode()).isEqualTo(201);
        assertThat(dup.statusCode()).isEqualTo(201);
        assertThat(dup.body()).isEqualTo("a long call");
        assertThat(dup.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
    }

    /**
     * {@code onConcurrent: wait} waits up to {@code waitTimeout}: a duplicate still waiting then
     * gets 409 key-in-flight (and is counted), the call goes on, and a later duplicate is replayed.
     */
    @Test
    void aDuplicateStillWaitingAtWaitTimeoutGets409AndIsCounted() throws Exception {
        String key = UUID.randomUUID().toString();
        String conflicts = "idemproxy_key_conflicts_total{kind=\"in_flight\",route=\"shortwait\"}";
        double counted = metric(conflicts);
        upstream.enqueue(delayHead(Duration.ofMillis(2000), respond(200, "slow")));
        CompletableFuture<HttpResponse<String>> first = async(() -> post("/shortwait", key, "{}"));
        upstream.awaitRequests(before + 1, Duration.ofSeconds(5));
        long start = System.nanoTime();
        HttpResponse<String> dup = post("/shortwait", key, "{}");
        long waitedMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(dup.statusCode()).isEqualTo(409);
        assertThat(dup.body()).contains("urn:idemproxy:problem:key-in-flight").contains("waitTimeout");
        assertThat(waitedMillis).as("it waited for the call before giving up").isGreaterThanOrEqualTo(300);
        assertThat(first.isDone()).as("premise: the call was still in flight").isFalse();
        assertThat(metric(conflicts)).isEqualTo(counted + 1);
        assertThat(first.get().body()).isEqualTo("slow");
        assertThat(post("/shortwait", key, "{}").headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
    }

    interface Call {
        HttpResponse<String> send() throws Exception;
    }

    /** {@code call} on the common pool, a failure rethrown unchecked to whoever joins it. */
    static CompletableFuture<HttpResponse<String>> async(Call call) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return call.send();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
    }

    /** The value of one series on the admin listener's /metrics, 0 when it is not there yet. */
    static double metric(String series) throws Exception {
        String text = client.send(HttpRequest.newBuilder(proxy.admin("/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        return text.lines().filter(l -> l.startsWith(series + " ")).findFirst()
                .map(l -> Double.parseDouble(l.substring(series.length() + 1).trim())).orElse(0.0);
    }

    @Test
    void keysNeverCrossPrincipals() throws Exception {
        String key = UUID.randomUUID().toString();
        upstream.enqueue(respond(200, "alice's"), respond(200, "bob's"));
        HttpResponse<String> a = post("/tickets", key, "{}", "Authorization", "Bearer alice");
        HttpResponse<String> b = post("/tickets", key, "{}", "Authorization", "Bearer bob");
        assertThat(a.body()).isEqualTo("alice's");
        assertThat(b.body()).isEqualTo("bob's");
        assertThat(b.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(upstream.requestCount()).isEqualTo(before + 2);
    }

    /**
     * docs/security.md: without {@code scope}, every credential header the request carries scopes its
     * key, so callers authenticated by a cookie or an API key never get each other's response
     * (its {@code Set-Cookie} included).
     */
    @Test
    void callersWithDifferentCookiesApiKeysOrSecretHeadersNeverShareARecord() throws Exception {
        // Raw requests: the JDK client drops a Proxy-Authorization it is given on a request not sent to a proxy.
        for (String header : List.of("Cookie", "X-Api-Key", "Api-Key", "Proxy-Authorization", "X-Auth-Token")) {
            before = upstream.requestCount();
            String key = UUID.randomUUID().toString();
            upstream.enqueue(respond(201, Map.of("Set-Cookie", "session=alice"), "alice's"),
                    respond(201, Map.of("Set-Cookie", "session=bob"), "bob's"));
            String alice = header + ": alice-credential\r\n";
            String bob = header + ": bob-credential\r\n";
            RawHttp.Response aliceFirst = rawPost(key, alice);
            RawHttp.Response bobFirst = rawPost(key, bob);
            assertThat(bobFirst.bodyAsString()).as(header).isEqualTo("bob's");
            assertThat(bobFirst.header("Set-Cookie")).as(header).isEqualTo("session=bob");
            assertThat(bobFirst.header("Idempotent-Replayed")).as(header).isNull();
            RawHttp.Response aliceAgain = rawPost(key, alice);
            RawHttp.Response bobAgain = rawPost(key, bob);
            assertThat(aliceAgain.bodyAsString()).as(header).isEqualTo(aliceFirst.bodyAsString()).isEqualTo("alice's");
            assertThat(aliceAgain.header("Set-Cookie")).as(header).isEqualTo("session=alice");
            assertThat(aliceAgain.header("Idempotent-Replayed")).as(header).isEqualTo("true");
            assertThat(bobAgain.bodyAsString()).as(header).isEqualTo("bob's");
            assertThat(bobAgain.header("Idempotent-Replayed")).as(header).isEqualTo("true");
            assertThat(upstream.requestCount()).as(header).isEqualTo(before + 2);
        }
    }

    @Test
    void anotherCallersKeyIsNeverA422OrA409() throws Exception {
        String key = UUID.randomUUID().toString();
        upstream.enqueue(respond(200, "alice's"), respond(200, "bob's"));
        post("/tickets", key, "{\"amount\":10}", "X-Api-Key", "alice");
        HttpResponse<String> bob = post("/tickets", key, "{\"amount\":99}", "X-Api-Key", "bob");
        assertThat(bob.statusCode()).as("not 422: another caller's record").isEqualTo(200);
        assertThat(bob.body()).isEqualTo("bob's");

        int mark = upstream.requestCount();
        upstream.enqueue(delayHead(Duration.ofMillis(800), respond(200, "alice's slow")), respond(200, "bob's quick"));
        CompletableFuture<HttpResponse<String>> aliceInFlight = async(() -> post("/strict", key, "{}", "Cookie", "s=alice"));
        upstream.awaitRequests(mark + 1, Duration.ofSeconds(5));
        HttpResponse<String> bobMeanwhile = post("/strict", key, "{}", "Cookie", "s=bob");
        assertThat(bobMeanwhile.statusCode()).as("not 409: another caller's call in flight").isEqualTo(200);
        assertThat(bobMeanwhile.body()).isEqualTo("bob's quick");
        assertThat(aliceInFlight.get().body()).isEqualTo("alice's slow");
        assertThat(upstream.requestCount()).isEqualTo(before + 4);
    }

    @Test
    void aRoutesScopeOverridesTheCredentialDefault() throws Exception {
        String key = UUID.randomUUID().toString();
        upstream.enqueue(respond(200, "t1's"), respond(200, "t2's"));
        post("/tenants", key, "{}", "X-Tenant", "t1", "X-Api-Key", "alice");
        HttpResponse<String> sameTenant = post("/tenants", key, "{}", "X-Tenant", "t1", "X-Api-Key", "bob");
        assertThat(sameTenant.headers().firstValue("Idempotent-Replayed")).as("scoped by X-Tenant alone").hasValue("true");
        assertThat(sameTenant.body()).isEqualTo("t1's");
        HttpResponse<String> otherTenant = post("/tenants", key, "{}", "X-Tenant", "t2", "X-Api-Key", "alice");
        assertThat(otherTenant.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(otherTenant.body()).isEqualTo("t2's");
        assertThat(upstream.requestCount()).isEqualTo(before + 2);
    }

    @Test
    void aSecondAuthorizationLineIsAnotherPrincipalNotAReplayOfTheFirstLinesRecord() throws Exception {
        String key = UUID.randomUUID().toString();
        upstream.enqueue(respond(200, "alice's"), respond(200, "alice-and-mallory's"));
        String alice = "Authorization: Bearer alice\r\n";
        String mallory = "Authorization: Bearer mallory\r\n";
        RawHttp.Response one = rawPost(key, alice);
        RawHttp.Response two = rawPost(key, alice + mallory);
        assertThat(one.bodyAsString()).isEqualTo("alice's");
        assertThat(two.bodyAsString()).as("executed as its own call").isEqualTo("alice-and-mallory's");
        assertThat(two.header("Idempotent-Replayed")).isNull();
        assertThat(two.header("X-Call-Id")).isNotEqualTo(one.header("X-Call-Id"));
        assertThat(upstream.requestCount()).isEqualTo(before + 2);
        RawHttp.Response twoAgain = rawPost(key, alice + mallory);
        RawHttp.Response oneAgain = rawPost(key, alice);
        assertThat(twoAgain.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(twoAgain.bodyAsString()).isEqualTo("alice-and-mallory's");
        assertThat(oneAgain.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(oneAgain.bodyAsString()).isEqualTo("alice's");
        assertThat(rawPost(key, mallory + alice).header("Idempotent-Replayed")).as("the lines' order counts").isNull();
        assertThat(upstream.requestCount()).isEqualTo(before + 3);
    }

    /** A POST to /tickets with {@code key} and the given header lines, each ending in CRLF, sent as they are. */
    static RawHttp.Response rawPost(String key, String headerLines) throws Exception {
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write("POST /tickets HTTP/1.1\r\nHost: a\r\nIdempotency-Key: " + key + "\r\n" + headerLines
                    + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
            return raw.readResponse();
        }
    }

    @Test
    void concurrentDuplicatesWaitForTheFirstAndShareItsResponse() throws Exception {
        String key = UUID.randomUUID().toString();
        upstream.enqueue(delayHead(Duration.ofMillis(800), respond(200, "the one execution")));
        List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            all.add(async(() -> post("/tickets", key, "{\"x\":1}")));
        }
        for (CompletableFuture<HttpResponse<String>> f : all) {
            HttpResponse<String> r = f.get();
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("the one execution");
        }
        assertThat(all.stream().filter(f -> f.join().headers().firstValue("Idempotent-Replayed").isPresent())).hasSize(7);
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
    }

    @Test
    void duplicateOfInFlightCallIs409WhenTheRouteRejects() throws Exception {
        String key = UUID.randomUUID().toString();
        upstream.enqueue(delayHead(Duration.ofMillis(800), respond(200, "slow")));
        CompletableFuture<HttpResponse<String>> first = async(() -> post("/strict", key, "{}"));
        upstream.awaitRequests(before + 1, Duration.ofSeconds(5));
        HttpResponse<String> dup = post("/strict", key, "{}");
        assertThat(dup.statusCode()).isEqualTo(409);
        assertThat(dup.body()).contains("urn:idemproxy:problem:key-in-flight");
        assertThat(first.get().body()).isEqualTo("slow");
    }

    @Test
    void missingKeyOnRequiredRouteIs400() throws Exception {
        HttpResponse<String> r = post("/strict", null, "{}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("urn:idemproxy:problem:missing-idempotency-key");
        assertThat(upstream.requestCount()).isEqualTo(before);
    }

    @Test
    void quotedKeysAreAcceptedAndOverlongKeysRefused() throws Exception {
        upstream.enqueue(respond(200, "quoted"));
        String k = UUID.randomUUID().toString();
        assertThat(post("/tickets", "\"" + k + "\"", "{}").statusCode()).isEqualTo(200);
        assertThat(post("/tickets", k, "{}").headers().firstValue("Idempotent-Replayed")).hasValue("true");
        HttpResponse<String> tooLong = post("/tickets", "k".repeat(256), "{}");
        assertThat(tooLong.statusCode()).isEqualTo(400);
        assertThat(tooLong.body()).contains("urn:idemproxy:problem:bad-request");
    }

    /** Two lines of the key header are two keys, as {@code k1,k2} is: 400, never the first one used. */
    @Test
    void aKeySentOnTwoHeaderLinesIsABadRequestAndNothingIsForwarded() throws Exception {
        String k = UUID.randomUUID().toString();
        for (String[] routeAndHeader : List.of(new String[] {"/tickets", "Idempotency-Key"}, new String[] {"/custom", "X-Request-Key"})) {
            String header = routeAndHeader[1];
            try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
                raw.write("POST " + routeAndHeader[0] + " HTTP/1.1\r\nHost: a\r\n" + header + ": " + k + "\r\n"
                        + header.toLowerCase(java.util.Locale.ROOT) + ": " + k + "-other\r\n"
                        + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
                RawHttp.Response r = raw.readResponse();
                assertThat(r.status()).as(header).isEqualTo(400);
                assertThat(r.header("Content-Type")).isEqualTo("application/problem+json");
                assertThat(r.bodyAsString()).contains("urn:idemproxy:problem:bad-request")
                        .contains(header + " was sent on 2 header lines");
            }
        }
        assertThat(upstream.requestCount()).as("nothing forwarded").isEqualTo(before);

        // Nothing was claimed under the first line's key: it executes when sent alone.
        upstream.enqueue(respond(201, "one key"));
        HttpResponse<String> alone = post("/tickets", k, "{}");
        assertThat(alone.statusCode()).isEqualTo(201);
        assertThat(alone.headers().firstValue("Idempotent-Replayed")).isEmpty();

        // Where the key header is X-Request-Key, Idempotency-Key is an ordinary header and may repeat.
        upstream.enqueue(respond(200, "custom"));
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write("POST /custom HTTP/1.1\r\nHost: a\r\nX-Request-Key: " + k + "\r\nIdempotency-Key: a\r\nIdempotency-Key: b\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
            assertThat(raw.readResponse().status()).isEqualTo(200);
        }
        assertThat(upstream.request(before + 1).header("X-Request-Key")).isEqualTo(k);
    }

    /** docs/configuration.md "Key defaults": a client that sends no key (as the OpenAI and Anthropic SDKs) is still deduplicated. */
    @Test
    void aKeylessRetryOfTheSameCallIsAReplayByDefault() throws Exception {
        upstream.enqueue(respond(201, "created once"), respond(201, "another ticket"));
        String body = "{\"title\":\"printer on fire\",\"id\":\"" + UUID.randomUUID() + "\"}";
        HttpResponse<String> first = post("/tickets", null, body);
        HttpResponse<String> retry = post("/tickets", null, body.replace("{", "{ ").replace(",", " , "));
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body()).isEqualTo("created once");
        assertThat(upstream.request(before).header("Idempotency-Key")).matches("d:[0-9a-f]{32}");
        HttpResponse<String> otherCall = post("/tickets", null, body.replace("printer", "scanner"));
        assertThat(otherCall.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(otherCall.body()).isEqualTo("another ticket");
        assertThat(upstream.requestCount()).isEqualTo(before + 2);
    }

    @Test
    void withDerivationTurnedOffEachKeylessCallExecutesWithAKeyOfItsOwn() throws Exception {
        upstream.enqueue(respond(201, "one"), respond(201, "two"));
        HttpResponse<String> a = post("/underived", null, "{\"title\":\"printer\"}");
        HttpResponse<String> b = post("/underived", null, "{\"title\":\"printer\"}");
        assertThat(a.body()).isEqualTo("one");
        assertThat(b.body()).isEqualTo("two");
        assertThat(b.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(upstream.request(before).header("Idempotency-Key")).startsWith("g:")
                .isNotEqualTo(upstream.request(before + 1).header("Idempotency-Key"));
    }

    @Test
    void derivedKeysMakeRewordedRetriesDuplicates() throws Exception {
        upstream.enqueue(respond(200, "refund issued"));
        HttpResponse<String> a = post("/derived", null, "{\"userId\":7,\"op\":\"refund\",\"note\":\"please refund me\"}");
        HttpResponse<String> b = post("/derived", null, "{\"op\":\"refund\",\"userId\":7,\"note\":\"I asked for a refund\"}");
        assertThat(a.body()).isEqualTo("refund issued");
        assertThat(b.body()).isEqualTo("refund issued");
        assertThat(b.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
        assertThat(upstream.request(before).header("Idempotency-Key")).isNotBlank();
    }

    @Test
    void derivedKeyWindowRunsFromTheFirstCall() throws Exception {
        upstream.defaultAction(respond(200, "executed"));
        long start = System.nanoTime();
        String body = "{\"userId\":\"" + UUID.randomUUID() + "\"}";
        assertThat(post("/windowed", null, body).headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(post("/windowed", null, body).headers().firstValue("Idempotent-Replayed")).hasValue("true");
        // Poll (bounded) until the window has passed: the same parts then make a new call.
        HttpResponse<String> later = Await.value("a call after the window, executed afresh", Duration.ofSeconds(5),
                () -> post("/windowed", null, body), r -> r.headers().firstValue("Idempotent-Replayed").isEmpty());
        assertThat(later.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(500_000_000L);
        upstream.defaultAction(respond(200, "ok"));
    }

    @Test
    void bodyOverMaxRequestBodyIs413() throws Exception {
        HttpResponse<String> r = post("/tickets", UUID.randomUUID().toString(), "{\"x\":\"" + "y".repeat(2000) + "\"}");
        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(r.body()).contains("urn:idemproxy:problem:request-too-large");
        assertThat(upstream.requestCount()).isEqualTo(before);
    }

    /**
     * A client that waits for {@code 100 Continue} is not invited to upload a body declared over
     * maxRequestBody: it gets the 413 at once, and the connection closes (the codec still expects
     * the body it will not send). One within the limit is invited, then stored as any other.
     */
    @Test
    void expectContinueIsAnsweredOnlyForABodyWithinMaxRequestBody() throws Exception {
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write("POST /tickets HTTP/1.1\r\nHost: a\r\nIdempotency-Key: " + UUID.randomUUID()
                    + "\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n");
            RawHttp.Response first = raw.readResponse();
            assertThat(first.status()).as("the final answer, not 100 Continue").isEqualTo(413);
            assertThat(first.header("connection")).isEqualTo("close");
            assertThat(raw.isClosedByPeer(Duration.ofSeconds(5))).isTrue();
        }
        assertThat(upstream.requestCount()).isEqualTo(before);

        upstream.enqueue(respond(201, "made"));
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write("POST /tickets HTTP/1.1\r\nHost: a\r\nIdempotency-Key: " + UUID.randomUUID()
                    + "\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
            assertThat(raw.readResponse().status()).isEqualTo(100);
            raw.write("{}");
            RawHttp.Response made = raw.readResponse();
            assertThat(made.status()).isEqualTo(201);
            assertThat(made.bodyAsString()).isEqualTo("made");
        }
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
        assertThat(upstream.requests().get(before).header("Expect")).as("the proxy answered it; the upstream is not asked").isNull();
    }

    @Test
    void callFinishesAndIsStoredEvenWhenTheCallerHangsUp() throws Exception {
        String key = UUID.randomUUID().toString();
        upstream.enqueue(delayHead(Duration.ofMillis(500), respond(201, "made while you were gone")));
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write("POST /tickets HTTP/1.1\r\nHost: a\r\nIdempotency-Key: " + key
                    + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
            upstream.awaitRequests(before + 1, Duration.ofSeconds(5));
        }
        HttpResponse<String> retry = post("/tickets", key, "{}");
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo("made while you were gone");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
    }
}
