package dev.idemproxy.app.it;

import dev.idemproxy.core.testing.Await;

import static dev.idemproxy.core.testing.UpstreamAction.delayHead;
import static dev.idemproxy.core.testing.UpstreamAction.echo;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static dev.idemproxy.core.testing.UpstreamAction.respondChunked;
import static dev.idemproxy.core.testing.UpstreamAction.respondWithoutLength;
import static dev.idemproxy.core.testing.UpstreamAction.resetAfterRequest;
import static dev.idemproxy.core.testing.UpstreamAction.sse;
import static dev.idemproxy.core.testing.UpstreamAction.stallAfterHead;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.FreePorts;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RawHttp;
import dev.idemproxy.core.testing.RecordedRequest;
import dev.idemproxy.core.testing.SseAction;
import dev.idemproxy.core.testing.TestUpstream;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The pass-through proxy path on the wire: real proxy, real upstream, loopback only. */
@ExtendWith(LeakDetection.class)
class ProxyPathIT {
    static TestUpstream upstream;
    static TestUpstream pooledUpstream;
    static RunningProxy proxy;
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
        pooledUpstream = TestUpstream.start();
        int dead = FreePorts.pick();
        proxy = RunningProxy.start(""
                + "server: { ioThreads: 2 }\n"  // two event loops: see eachEventLoopKeepsItsOwnUpstreamConnection
                + "routes:\n"
                + "  - name: refused\n"
                + "    match: { pathPrefix: /refused }\n"
                + "    upstream: http://127.0.0.1:" + dead + "\n"
                + "  - name: unresolvable\n"
                + "    match: { pathPrefix: /unresolvable }\n"
                + "    upstream: http://no-such-host.invalid:8080\n"
                + "  - name: slow\n"
                + "    match: { pathPrefix: /slow }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    timeouts: { perTry: 300ms, total: 10s }\n"
                + "  - name: stalls\n"
                + "    match: { pathPrefix: /stalls }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    timeouts: { idle: 400ms, perTry: 10s, total: 20s }\n"
                + "  - name: shortIdle\n"
                + "    match: { pathPrefix: /short-idle }\n"
                + "    upstream: " + pooledUpstream.uri() + "\n"
                + "    pool: { idleTimeout: 300ms }\n"
                + "  - name: tickets\n"
                + "    match: { host: tickets.internal, pathPrefix: /api }\n"
                + "    upstream: " + upstream.uri() + "/v2\n"
                + "  - name: prot\n"
                + "    match: { pathPrefix: /prot }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true }\n"
                + "  - name: main\n"
                + "    match: { pathPrefix: /api, methods: [GET, POST, PUT, HEAD] }\n"
                + "    upstream: " + upstream.uri() + "\n");
    }

    @AfterAll
    static void stop() {
        proxy.close();
        upstream.close();
        pooledUpstream.close();
    }

    static HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(proxy.uri(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void getIsForwardedWithForwardedHeadersAndUpstreamHost() throws Exception {
        upstream.enqueue(respond(200, Map.of("X-Up", "1"), "hello"));
        int before = upstream.requestCount();
        HttpResponse<String> r = get("/api/items?id=7");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("hello");
        assertThat(r.headers().firstValue("x-up")).hasValue("1");
        RecordedRequest seen = upstream.awaitRequests(before + 1, Duration.ofSeconds(5)).get(before);
        assertThat(seen.uri()).isEqualTo("/api/items?id=7");
        assertThat(seen.header("Host")).isEqualTo("127.0.0.1:" + upstream.port());
        assertThat(seen.header("X-Forwarded-For")).isEqualTo("127.0.0.1");
        assertThat(seen.header("X-Forwarded-Proto")).isEqualTo("http");
        assertThat(seen.header("X-Forwarded-Host")).isEqualTo("127.0.0.1:" + proxy.port());
    }

    /** The DLQ replay's proof (and anything posing as it) is the proxy's own: it never reaches an upstream. */
    @Test
    void theDlqReplayHeadersNeverReachAPassThroughUpstream() throws Exception {
        upstream.enqueue(respond(200, "ok"));
        int before = upstream.requestCount();
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write("GET /api/replayed HTTP/1.1\r\nHost: a\r\nX-Idemproxy-Replay: 0123456789abcdef\r\n"
                    + "X-Idemproxy-Replay-Record: r1\r\nX-Idemproxy-Replay-Created: 2026-01-01T00:00:00Z\r\nX-Public: 1\r\n\r\n");
            assertThat(raw.readResponse().status()).isEqualTo(200);
        }
        RecordedRequest seen = upstream.awaitRequests(before + 1, Duration.ofSeconds(5)).get(before);
        assertThat(seen.header("X-Idemproxy-Replay")).isNull();
        assertThat(seen.header("X-Idemproxy-Replay-Record")).isNull();
        assertThat(seen.header("X-Idemproxy-Replay-Created")).isNull();
        assertThat(seen.header("X-Public")).isEqualTo("1");
    }

    @Test
    void hopByHopHeadersAreDroppedBothWays() throws Exception {
        upstream.enqueue(respond(200, Map.of("Keep-Alive", "timeout=5", "X-Kept", "yes"), "ok"));
        int before = upstream.requestCount();
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write("GET /api/hop HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, X-Private\r\nX-Private: secret\r\n"
                    + "Proxy-Authorization: Basic Zm9vOmJhcg==\r\nTE: trailers\r\nX-Public: 1\r\n\r\n");
            RawHttp.Response resp = raw.readResponse();
            assertThat(resp.status()).isEqualTo(200);
            assertThat(resp.header("Keep-Alive")).isNull();
            assertThat(resp.header("X-Kept")).isEqualTo("yes");
        }
        RecordedRequest seen = upstream.awaitRequests(before + 1, Duration.ofSeconds(5)).get(before);
        assertThat(seen.header("X-Private")).isNull();
        assertThat(seen.header("Proxy-Authorization")).isNull();
        assertThat(seen.header("TE")).isNull();
        assertThat(seen.header("X-Public")).isEqualTo("1");
    }

    @Test
    void absoluteFormRequestsMatchOnTheUriHost() throws Exception {
        upstream.enqueue(respond(201, "made"));
        int before = upstream.requestCount();
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            // The URI's host decides, not the Host header (RFC 9112 3.2.2: a proxy ignores Host for
            // an absolute-form target): matched on Host, this would take the catch-all route "main".
            raw.write("POST http://tickets.internal/api/tickets HTTP/1.1\r\nHost: elsewhere.example\r\n"
                    + "Content-Length: 2\r\n\r\n{}");
            assertThat(raw.readResponse().status()).isEqualTo(201);
        }
        RecordedRequest seen = upstream.awaitRequests(before + 1, Duration.ofSeconds(5)).get(before);
        assertThat(seen.uri()).isEqualTo("/v2/api/tickets");
        assertThat(seen.bodyAsString()).isEqualTo("{}");
        assertThat(seen.header("X-Forwarded-Host")).isEqualTo("tickets.internal");
    }

    @Test
    void chunkedBodiesPassThroughBothWays() throws Exception {
        upstream.enqueue(respondChunked(200, List.of("part1-".getBytes(UTF_8), "part2".getBytes(UTF_8))));
        int before = upstream.requestCount();
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write("POST /api/chunked HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n");
            RawHttp.Response resp = raw.readResponse();
            assertThat(resp.status()).isEqualTo(200);
            assertThat(resp.header("Transfer-Encoding")).isEqualTo("chunked");
            assertThat(resp.bodyAsString()).isEqualTo("part1-part2");
        }
        RecordedRequest seen = upstream.awaitRequests(before + 1, Duration.ofSeconds(5)).get(before);
        assertThat(seen.bodyAsString()).isEqualTo("hello world");
        assertThat(seen.header("Transfer-Encoding")).isEqualTo("chunked");
    }

    /**
     * The request goes upstream as HTTP/1.1, and the upstream may answer chunked; an HTTP/1.0
     * client cannot read chunks (RFC 9112 §6.1), so it gets the body as it is, ended by the close.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {
        "GET /api/chunked-for-1.0 HTTP/1.0\r\nHost: a\r\n\r\n",
        "POST /prot/chunked-for-1.0 HTTP/1.0\r\nHost: a\r\nIdempotency-Key: http10\r\nContent-Length: 2\r\n\r\n{}"})
    void anHttp10ClientGetsAChunkedAnswerUnchunkedAndThenTheClose(String request) throws Exception {
        upstream.enqueue(respondChunked(200, List.of("part1-".getBytes(UTF_8), "part2".getBytes(UTF_8))));
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write(request);
            String all = new String(raw.readUntilClose(), UTF_8);
            String head = all.substring(0, all.indexOf("\r\n\r\n"));
            assertThat(head).startsWith("HTTP/1.1 200 ");
            assertThat(head.toLowerCase(java.util.Locale.ROOT)).doesNotContain("transfer-encoding").contains("connection: close");
            assertThat(all.substring(head.length() + 4)).isEqualTo("part1-part2");
        }
    }

    @Test
    void keepAliveOnBothLegsReusesOneUpstreamConnection() throws Exception {
        long connsBefore = upstream.connectionsAccepted();
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            for (int i = 0; i < 5; i++) {
                upstream.enqueue(respond(200, "n" + i));
                raw.write("GET /api/ka/" + i + " HTTP/1.1\r\nHost: a\r\n\r\n");
                RawHttp.Response resp = raw.readResponse();
                assertThat(resp.bodyAsString()).isEqualTo("n" + i);
            }
        }
        // One client connection lives on one event loop, so its calls share one pooled upstream connection.
        assertThat(upstream.connectionsAccepted() - connsBefore).isLessThanOrEqualTo(1);
    }

    /**
     * Upstream connections are pooled per event loop and used only on the loop of the client
     * connection that took them, so a call never hops threads. Two client connections, accepted
     * one after the other, land on the proxy's two loops; taking turns, each keeps reusing its
     * own upstream connection. One pool shared by the loops would hand the second client the
     * connection the first had just returned.
     */
    @Test
    void eachEventLoopKeepsItsOwnUpstreamConnection() throws Exception {
        int before = upstream.requestCount();
        try (RawHttp first = RawHttp.connect("127.0.0.1", proxy.port());
                RawHttp second = RawHttp.connect("127.0.0.1", proxy.port())) {
            for (int i = 0; i < 4; i++) {
                for (RawHttp client : List.of(first, second)) {
                    upstream.enqueue(respond(200, "turn " + i));
                    client.write("GET /api/loops/" + i + " HTTP/1.1\r\nHost: a\r\n\r\n");
                    assertThat(client.readResponse().bodyAsString()).isEqualTo("turn " + i);
                }
            }
        }
        List<RecordedRequest> seen = upstream.awaitRequests(before + 8, Duration.ofSeconds(5)).subList(before, before + 8);
        Set<Long> viaFirst = new HashSet<>();
        Set<Long> viaSecond = new HashSet<>();
        for (int i = 0; i < seen.size(); i++) {
            (i % 2 == 0 ? viaFirst : viaSecond).add(seen.get(i).connectionId());
        }
        assertThat(viaFirst).as("the first client's upstream connections").hasSize(1);
        assertThat(viaSecond).as("the second client's upstream connections").hasSize(1);
        assertThat(viaFirst).doesNotContainAnyElementsOf(viaSecond);
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        upstream.enqueue(delayHead(Duration.ofMillis(200), respond(200, "first")), respond(200, "second"));
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write("GET /api/p1 HTTP/1.1\r\nHost: a\r\n\r\nGET /api/p2 HTTP/1.1\r\nHost: a\r\n\r\nGET /nowhere HTTP/1.1\r\nHost: a\r\n\r\n");
            assertThat(raw.readResponse().bodyAsString()).isEqualTo("first");
            assertThat(raw.readResponse().bodyAsString()).isEqualTo("second");
            assertThat(raw.readResponse().status()).isEqualTo(404);
        }
    }

    @Test
    void serverSentEventsReachTheClientAsTheUpstreamSendsThem() throws Exception {
        SseAction events = sse(List.of("one", "two", "three"), Duration.ofMillis(400));
        upstream.enqueue(events);
        HttpResponse<InputStream> r = client.send(HttpRequest.newBuilder(proxy.uri("/api/events")).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.headers().firstValue("content-type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/event-stream"));
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), UTF_8))) {
            assertThat(in.readLine()).isEqualTo("data: one");
            // The first event arrived while the upstream had not yet sent the second: nothing is buffered.
            assertThat(events.eventsSent()).isEqualTo(1);
            assertThat(in.readLine()).isEmpty();
            assertThat(in.readLine()).isEqualTo("data: two");
            assertThat(in.readLine()).isEmpty();
            assertThat(in.readLine()).isEqualTo("data: three");
        }
    }

    @Test
    void headRequestGetsHeadersWithoutBody() throws Exception {
        upstream.enqueue(respond(200, Map.of("Content-Length", "5"), new byte[0]));
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write("HEAD /api/head HTTP/1.1\r\nHost: a\r\n\r\n");
            RawHttp.Response resp = raw.readHeadResponse();
            assertThat(resp.status()).isEqualTo(200);
            upstream.enqueue(respond(200, "after"));
            raw.write("GET /api/after HTTP/1.1\r\nHost: a\r\n\r\n");
            assertThat(raw.readResponse().bodyAsString()).isEqualTo("after");
        }
    }

    /**
     * Answers whose end is known without a length (a 304, a 204, any answer to HEAD) keep the
     * client connection open; Netty's keep-alive handler closed it after every 304 without one.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"GET 304", "GET 204", "HEAD 200"})
    void bodilessAnswersWithoutALengthKeepTheClientConnection(String methodAndStatus) throws Exception {
        String method = methodAndStatus.split(" ")[0];
        int status = Integer.parseInt(methodAndStatus.split(" ")[1]);
        upstream.enqueue(respondWithoutLength(status, Map.of("ETag", "\"v1\"")));
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write(method + " /api/bodiless HTTP/1.1\r\nHost: a\r\nIf-None-Match: \"v1\"\r\n\r\n");
            RawHttp.Response resp = raw.readHeadResponse();
            assertThat(resp.status()).isEqualTo(status);
            assertThat(resp.header("connection")).as("no close announced").isNull();
            upstream.enqueue(respond(200, "after"));
            raw.write("GET /api/after HTTP/1.1\r\nHost: a\r\n\r\n");
            assertThat(raw.readResponse().bodyAsString()).as("the same connection answers the next request").isEqualTo("after");
        }
    }

    @Test
    void expectContinueIsAnsweredAndTheBodyForwarded() throws Exception {
        upstream.enqueue(echo());
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write("PUT /api/expect HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n");
            assertThat(raw.readResponse().status()).isEqualTo(100);
            raw.write("body");
            RawHttp.Response resp = raw.readResponse();
            assertThat(resp.status()).isEqualTo(200);
            assertThat(resp.bodyAsString()).isEqualTo("body");
        }
    }

    @Test
    void aRequestWaitingFor100ContinueWithNoRouteGetsThe404AndTheClose() throws Exception {
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write("POST /nowhere HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n");
            RawHttp.Response first = raw.readResponse();
            assertThat(first.status()).as("the final answer, not 100 Continue").isEqualTo(404);
            assertThat(first.header("connection")).isEqualTo("close");
            assertThat(raw.isClosedByPeer(Duration.ofSeconds(5))).isTrue();
        }
    }

    @Test
    void noRouteIs404ProblemAndTheConnectionStaysUsable() throws Exception {
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write("POST /elsewhere HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc");
            RawHttp.Response resp = raw.readResponse();
            assertThat(resp.status()).isEqualTo(404);
            assertThat(resp.header("Content-Type")).isEqualTo("application/problem+json");
            assertThat(resp.bodyAsString()).contains("\"type\":\"urn:idemproxy:problem:no-route\"").contains("\"status\":404");
            upstream.enqueue(respond(200, "still here"));
            raw.write("GET /api/x HTTP/1.1\r\nHost: a\r\n\r\n");
            assertThat(raw.readResponse().bodyAsString()).isEqualTo("still here");
        }
    }

    @Test
    void refusedUpstreamIs502UpstreamUnreachable() throws Exception {
        HttpResponse<String> r = get("/refused/x");
        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(r.body()).contains("urn:idemproxy:problem:upstream-unreachable");
    }

    @Test
    void unresolvableUpstreamIs502UpstreamUnreachable() throws Exception {
        HttpResponse<String> r = get("/unresolvable/x");
        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(r.body()).contains("urn:idemproxy:problem:upstream-unreachable");
    }

    @Test
    void upstreamResetBeforeAnsweringIs502() throws Exception {
        upstream.enqueue(resetAfterRequest());
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(proxy.uri("/api/reset"))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(r.body()).contains("urn:idemproxy:problem:upstream-reset");
    }

    @Test
    void noResponseHeadWithinPerTryIs504AmbiguousOutcome() throws Exception {
        upstream.enqueue(delayHead(Duration.ofSeconds(3), respond(200, "late")));
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(proxy.uri("/slow/x"))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(504);
        assertThat(r.body()).contains("urn:idemproxy:problem:ambiguous-outcome");
    }

    @Test
    void aResponseThatStallsLongerThanTheIdleTimeoutIsCutOff() throws Exception {
        upstream.enqueue(stallAfterHead(Duration.ofSeconds(6), 200, "0123456789".getBytes(UTF_8)));
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            long start = System.nanoTime();
            raw.write("GET /stalls/body HTTP/1.1\r\nHost: a\r\n\r\n");
            String got = new String(raw.readUntilClose(), UTF_8);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            // The head went through; the body never came, and the proxy gave up after `idle`, not after the stall.
            assertThat(got).startsWith("HTTP/1.1 200").doesNotContain("0123456789");
            assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(350)).isLessThan(Duration.ofSeconds(4));
        }
    }

    @Test
    void eventsCloserTogetherThanTheIdleTimeoutKeepTheResponseAlive() throws Exception {
        List<String> events = List.of("a", "b", "c", "d", "e", "f", "g", "h");
        upstream.enqueue(sse(events, Duration.ofMillis(100)));
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write("GET /stalls/events HTTP/1.1\r\nHost: a\r\n\r\n");
            RawHttp.Response r = raw.readResponse();
            assertThat(r.status()).isEqualTo(200);
            // 8 events over 700 ms: longer than the 400 ms idle timeout in all, never that long silent.
            assertThat(r.bodyAsString()).contains("data: a", "data: h");
        }
    }

    @Test
    void idleUpstreamConnectionsCloseAfterThePoolsIdleTimeoutAndBusyOnesStay() throws Exception {
        int before = pooledUpstream.openConnections();
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            // Calls closer together than the idle timeout keep reusing one connection.
            for (int i = 0; i < 4; i++) {
                pooledUpstream.enqueue(respond(200, "i" + i));
                raw.write("GET /short-idle/" + i + " HTTP/1.1\r\nHost: a\r\n\r\n");
                assertThat(raw.readResponse().bodyAsString()).isEqualTo("i" + i);
                Await.realTime(Duration.ofMillis(150));  // calls 150 ms apart: closer than the 300 ms idle timeout
            }
            assertThat(pooledUpstream.openConnections()).isEqualTo(before + 1);
            long accepted = pooledUpstream.connectionsAccepted();
            // Idle for longer than 300 ms: the proxy closes its pooled connection.
            Await.until("the idle pooled connection to close", Duration.ofSeconds(5),
                    () -> pooledUpstream.openConnections() <= before);
            assertThat(pooledUpstream.openConnections()).isEqualTo(before);
            // The next call opens a fresh one.
            pooledUpstream.enqueue(respond(200, "again"));
            raw.write("GET /short-idle/again HTTP/1.1\r\nHost: a\r\n\r\n");
            assertThat(raw.readResponse().bodyAsString()).isEqualTo("again");
            assertThat(pooledUpstream.connectionsAccepted()).isEqualTo(accepted + 1);
        }
    }

    @Test
    void theHeadTimeoutCountsFromEachCallsOwnRequestOnAKeptAliveConnection() throws Exception {
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            // Quick calls first: their head deadlines pass unused while the connection lives on.
            for (int i = 0; i < 3; i++) {
                upstream.enqueue(respond(200, "q" + i));
                raw.write("GET /slow/q" + i + " HTTP/1.1\r\nHost: a\r\n\r\n");
                assertThat(raw.readResponse().bodyAsString()).isEqualTo("q" + i);
                Await.realTime(Duration.ofMillis(120));  // each call's head deadline runs on past its answer
            }
            upstream.enqueue(delayHead(Duration.ofSeconds(3), respond(200, "late")));
            long start = System.nanoTime();
            raw.write("GET /slow/late HTTP/1.1\r\nHost: a\r\n\r\n");
            RawHttp.Response r = raw.readResponse();
            long tookMs = Duration.ofNanos(System.nanoTime() - start).toMillis();
            assertThat(r.status()).isEqualTo(504);
            // perTry is 300 ms: not cut short by an earlier call's deadline, and not left to run on.
            assertThat(tookMs).isBetween(280L, 2500L);
        }
    }
}
