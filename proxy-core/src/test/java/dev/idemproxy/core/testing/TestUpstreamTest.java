package dev.idemproxy.core.testing;

import static dev.idemproxy.core.testing.UpstreamAction.closeWithoutResponse;
import static dev.idemproxy.core.testing.UpstreamAction.delayHead;
import static dev.idemproxy.core.testing.UpstreamAction.drainUploads;
import static dev.idemproxy.core.testing.UpstreamAction.echo;
import static dev.idemproxy.core.testing.UpstreamAction.resetAfterBodyBytes;
import static dev.idemproxy.core.testing.UpstreamAction.resetAfterBytes;
import static dev.idemproxy.core.testing.UpstreamAction.resetAfterRequest;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static dev.idemproxy.core.testing.UpstreamAction.respondChunked;
import static dev.idemproxy.core.testing.UpstreamAction.retryAfter;
import static dev.idemproxy.core.testing.UpstreamAction.sse;
import static dev.idemproxy.core.testing.UpstreamAction.stallAfterHead;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link TestUpstream} driven by the JDK {@link HttpClient} (the agent in ITs) and by {@link RawHttp}. */
@ExtendWith(LeakDetection.class)
class TestUpstreamTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(WAIT)
            .build();
    private TestUpstream upstream;

    @BeforeEach
    void start() {
        upstream = TestUpstream.start();
    }

    @AfterEach
    void stop() {
        upstream.close();
    }

    private URI at(String pathAndQuery) {
        return URI.create(upstream.uri() + pathAndQuery);
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(at(path)).timeout(WAIT).build(), BodyHandlers.ofString());
    }

    /** A POST: unlike GET, the JDK client never retries it by itself after a broken connection. */
    private HttpResponse<String> post(String path) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(at(path)).timeout(WAIT).POST(BodyPublishers.ofString("b")).build(),
                BodyHandlers.ofString());
    }

    @Test
    void respondsAndRecordsTheRequest() throws Exception {
        upstream.enqueue(respond(201, Map.of("X-Reply", "r1"), "created"));

        HttpResponse<String> res = client.send(HttpRequest.newBuilder(at("/things?x=1"))
                .timeout(WAIT)
                .header("X-Custom", "v1")
                .POST(BodyPublishers.ofString("payload"))
                .build(), BodyHandlers.ofString());

        assertThat(res.statusCode()).isEqualTo(201);
        assertThat(res.body()).isEqualTo("created");
        assertThat(res.headers().firstValue("x-reply")).hasValue("r1");
        RecordedRequest r = upstream.awaitRequests(1, WAIT).get(0);
        assertThat(r.index()).isZero();
        assertThat(r.method()).isEqualTo("POST");
        assertThat(r.uri()).isEqualTo("/things?x=1");
        assertThat(r.path()).isEqualTo("/things");
        assertThat(r.header("x-custom")).isEqualTo("v1");
        assertThat(r.bodyAsString()).isEqualTo("payload");
        assertThat(r.bodyLength()).isEqualTo(7);
        assertThat(r.remotePort()).isPositive();
        assertThat(upstream.requestCount()).isEqualTo(1);
        assertThat(upstream.responsesStarted()).isEqualTo(1);
    }

    @Test
    void oneShotActionsRunInOrderThenTheDefault() throws Exception {
        upstream.defaultAction(respond(204));
        upstream.enqueue(respond(503), retryAfter(429, "2"), respond(200, "third"));

        assertThat(get("/").statusCode()).isEqualTo(503);
        HttpResponse<String> limited = get("/");
        assertThat(limited.statusCode()).isEqualTo(429);
        assertThat(limited.headers().firstValue("retry-after")).hasValue("2");
        assertThat(get("/").body()).isEqualTo("third");
        assertThat(get("/").statusCode()).isEqualTo(204);
        assertThat(upstream.pendingActions()).isZero();
        assertThat(upstream.requestCount()).isEqualTo(4);
    }

    @Test
    void keepAliveRequestsShareOneConnection() throws Exception {
        assertThat(get("/a").statusCode()).isEqualTo(200);
        assertThat(get("/b").statusCode()).isEqualTo(200);

        List<RecordedRequest> seen = upstream.awaitRequests(2, WAIT);
        assertThat(upstream.connectionsAccepted()).isEqualTo(1);
        assertThat(seen.get(0).connectionId()).isEqualTo(seen.get(1).connectionId());
        assertThat(seen.get(0).remotePort()).isEqualTo(seen.get(1).remotePort());
    }

    @Test
    void chunkedResponse() throws Exception {
        upstream.enqueue(respondChunked(200, List.of("ab".getBytes(UTF_8), "cd".getBytes(UTF_8), "ef".getBytes(UTF_8))));
        assertThat(get("/").body()).isEqualTo("abcdef");

        upstream.enqueue(respondChunked(200, List.of("gh".getBytes(UTF_8), "ij".getBytes(UTF_8))));
        try (RawHttp raw = RawHttp.connect("127.0.0.1", upstream.port())) {
            RawHttp.Response res = raw.write("GET / HTTP/1.1\r\nHost: up\r\n\r\n").readResponse();
            assertThat(res.header("transfer-encoding")).isEqualTo("chunked");
            assertThat(res.header("content-length")).isNull();
            assertThat(res.bodyAsString()).isEqualTo("ghij");
        }
    }

    @Test
    void delayedHeadArrivesNoSoonerThanTheDelay() throws Exception {
        Duration delay = Duration.ofMillis(300);
        upstream.enqueue(delayHead(delay, respond(200, "late")));

        long sentAt = System.nanoTime();
        HttpResponse<String> res = get("/");
        long receivedAt = System.nanoTime();

        assertThat(res.body()).isEqualTo("late");
        RecordedRequest r = upstream.request(0);
        assertThat(receivedAt - r.receivedAtNanos()).isGreaterThanOrEqualTo(delay.toNanos());
        assertThat(receivedAt - sentAt).isGreaterThanOrEqualTo(delay.toNanos());
    }

    @Test
    void stallAfterHeadDelaysOnlyTheBody() throws Exception {
        Duration delay = Duration.ofMillis(300);
        upstream.enqueue(stallAfterHead(delay, 200, "slow body".getBytes(UTF_8)));

        long sentAt = System.nanoTime();
        HttpResponse<java.io.InputStream> res = client.send(HttpRequest.newBuilder(at("/")).timeout(WAIT).build(),
                BodyHandlers.ofInputStream());
        assertThat(res.statusCode()).isEqualTo(200);
        assertThat(res.headers().firstValueAsLong("content-length")).hasValue(9);
        try (java.io.InputStream body = res.body()) {
            assertThat(new String(body.readAllBytes(), UTF_8)).isEqualTo("slow body");
        }
        assertThat(System.nanoTime() - sentAt).isGreaterThanOrEqualTo(delay.toNanos());
    }

    @Test
    void sseEventsArriveOneByOne() throws Exception {
        SseAction events = sse(List.of("one", "two", "three"), Duration.ofMillis(300));
        upstream.enqueue(events);

        HttpResponse<Stream<String>> res = client.send(HttpRequest.newBuilder(at("/events")).timeout(WAIT).build(),
                BodyHandlers.ofLines());
        assertThat(res.headers().firstValue("content-type")).hasValue("text/event-stream");
        List<String> lines = new ArrayList<>();
        try (Stream<String> body = res.body()) {
            Iterator<String> it = body.iterator();
            String first = it.next();
            // the first event is in hand while the upstream has not yet sent the last one
            assertThat(events.eventsSent()).isLessThan(3);
            lines.add(first);
            it.forEachRemaining(lines::add);
        }
        assertThat(lines).containsExactly("data: one", "", "data: two", "", "data: three", "");
        assertThat(events.awaitEventsSent(3, WAIT)).isTrue();
    }

    @Test
    void sseFramesMultiLineData() {
        assertThat(SseAction.frame("a\nb")).isEqualTo("data: a\ndata: b\n\n");
    }

    @Test
    void echoReturnsTheRequest() throws Exception {
        upstream.defaultAction(echo());
        HttpResponse<String> res = client.send(HttpRequest.newBuilder(at("/e?q=1"))
                .timeout(WAIT)
                .header("Content-Type", "application/json")
                .header("X-Trace", "t1")
                .PUT(BodyPublishers.ofString("{\"a\":1}"))
                .build(), BodyHandlers.ofString());

        assertThat(res.statusCode()).isEqualTo(200);
        assertThat(res.body()).isEqualTo("{\"a\":1}");
        assertThat(res.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(res.headers().firstValue("x-echo-method")).hasValue("PUT");
        assertThat(res.headers().firstValue("x-echo-uri")).hasValue("/e?q=1");
        assertThat(res.headers().allValues("x-echo-header")).anySatisfy(h -> assertThat(h).isEqualToIgnoringCase("x-trace: t1"));
    }

    @Test
    void resetAfterRequestFailsTheClient() throws Exception {
        upstream.enqueue(resetAfterRequest());
        assertThatThrownBy(() -> post("/")).isInstanceOf(IOException.class);
        assertThat(upstream.awaitRequests(1, WAIT)).hasSize(1);
        assertThat(upstream.responsesStarted()).isZero();

        upstream.enqueue(resetAfterRequest());
        try (RawHttp raw = RawHttp.connect("127.0.0.1", upstream.port())) {
            raw.write("GET / HTTP/1.1\r\nHost: up\r\n\r\n");
            assertThat(raw.awaitPeerClose(WAIT)).isEqualTo(RawHttp.PeerClose.RESET);
        }
    }

    @Test
    void closeWithoutResponseSendsFin() throws Exception {
        upstream.enqueue(closeWithoutResponse());
        try (RawHttp raw = RawHttp.connect("127.0.0.1", upstream.port())) {
            raw.write("GET / HTTP/1.1\r\nHost: up\r\n\r\n");
            assertThat(raw.awaitPeerClose(WAIT)).isEqualTo(RawHttp.PeerClose.CLOSED);
        }
    }

    @Test
    void resetAfterBytesCutsTheResponse() throws Exception {
        upstream.enqueue(resetAfterBodyBytes(100));
        try (RawHttp raw = RawHttp.connect("127.0.0.1", upstream.port())) {
            String got = new String(raw.write("GET / HTTP/1.1\r\nHost: up\r\n\r\n").readUntilClose(), UTF_8);
            assertThat(got).startsWith("HTTP/1.1 200 OK\r\n")
                    .contains("Content-Length: " + UpstreamAction.RESET_RESPONSE_BODY_LENGTH + "\r\n\r\n")
                    .endsWith("\r\n\r\n" + "x".repeat(100));
        }

        upstream.enqueue(resetAfterBytes(10));
        try (RawHttp raw = RawHttp.connect("127.0.0.1", upstream.port())) {
            byte[] got = raw.write("GET / HTTP/1.1\r\nHost: up\r\n\r\n").readUntilClose();
            assertThat(new String(got, UTF_8)).isEqualTo("HTTP/1.1 2");
        }

        upstream.enqueue(resetAfterBodyBytes(10));
        assertThatThrownBy(() -> post("/")).isInstanceOf(IOException.class);
        assertThat(upstream.responsesStarted()).isEqualTo(3);
    }

    @Test
    void drainCountsA64MiBStreamedUpload() throws Exception {
        long size = 64L * 1024 * 1024;
        long seed = 42;
        upstream.defaultAction(drainUploads());

        HttpResponse<String> res = client.send(HttpRequest.newBuilder(at("/upload"))
                .timeout(Duration.ofMinutes(2))
                .POST(BodyPublishers.fromPublisher(BodyPublishers.ofInputStream(() -> new UploadData(seed, size)), size))
                .build(), BodyHandlers.ofString());

        assertThat(res.statusCode()).isEqualTo(200);
        assertThat(res.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(res.body()).isEqualTo("{\"bytes\":" + size + ",\"crc32\":\""
                + DrainUploadsAction.crc32Hex(UploadData.crc32(seed, size)) + "\"}");
        RecordedRequest r = upstream.request(0);
        assertThat(r.bodyLength()).isEqualTo(size);
        assertThat(r.body()).isEmpty();
    }

    @Test
    void drainCanPauseReadingForBackPressure() throws Exception {
        long size = 8L * 1024 * 1024;
        DrainUploadsAction drain = drainUploads(1024 * 1024, Duration.ofMillis(200));
        upstream.enqueue(drain);

        // chunked upload this time (no Content-Length)
        HttpResponse<String> res = client.send(HttpRequest.newBuilder(at("/upload"))
                .timeout(Duration.ofMinutes(1))
                .POST(BodyPublishers.ofInputStream(() -> new UploadData(7, size)))
                .build(), BodyHandlers.ofString());

        assertThat(res.body()).contains("\"bytes\":" + size)
                .contains(DrainUploadsAction.crc32Hex(UploadData.crc32(7, size)));
        assertThat(drain.pauses()).isEqualTo(1);
    }

    @Test
    void rawClientSeesHeaderCasingKeepAliveAndClose() throws Exception {
        try (RawHttp raw = RawHttp.connect("127.0.0.1", upstream.port())) {
            RawHttp.Response first = raw.writeSlowly(
                    "GET /1 HTTP/1.1\r\nHost: up\r\nX-MiXeD-Case: yes\r\n\r\n".getBytes(UTF_8), 5, Duration.ofMillis(2))
                    .readResponse();
            assertThat(first.status()).isEqualTo(200);
            assertThat(first.bodyAsString()).isEqualTo("ok");

            RawHttp.Response second = raw.write("GET /2 HTTP/1.1\r\nHost: up\r\nConnection: close\r\n\r\n").readResponse();
            assertThat(second.header("connection")).isEqualToIgnoringCase("close");
            assertThat(raw.isClosedByPeer(WAIT)).isTrue();
        }
        List<RecordedRequest> seen = upstream.awaitRequests(2, WAIT);
        assertThat(seen.get(0).headers()).contains(new Header("X-MiXeD-Case", "yes"));
        assertThat(upstream.connectionsAccepted()).isEqualTo(1);
    }

    @Test
    void rawClientReadsInterimResponses() throws Exception {
        upstream.enqueue(echo());
        try (RawHttp raw = RawHttp.connect("127.0.0.1", upstream.port())) {
            raw.write("POST / HTTP/1.1\r\nHost: up\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n");
            assertThat(raw.readResponse().status()).isEqualTo(100);
            RawHttp.Response res = raw.write("hi").readFinalResponse();
            assertThat(res.status()).isEqualTo(200);
            assertThat(res.bodyAsString()).isEqualTo("hi");
            assertThat(raw.isClosedByPeer(Duration.ofMillis(50))).isFalse();
        }
    }

    @Test
    void malformedRequestGets400AndClose() throws Exception {
        try (RawHttp raw = RawHttp.connect("127.0.0.1", upstream.port())) {
            RawHttp.Response res = raw.write("GET / HTTP/1.1\r\nHost: up\r\nContent-Length: abc\r\n\r\n").readResponse();
            assertThat(res.status()).isEqualTo(400);
            assertThat(raw.isClosedByPeer(WAIT)).isTrue();
        }
        assertThat(upstream.requestCount()).isZero();
    }

    @Test
    void hangKeepsTheConnectionOpenUntilClosed() throws Exception {
        upstream.enqueue(UpstreamAction.hang());
        try (RawHttp raw = RawHttp.connect("127.0.0.1", upstream.port())) {
            raw.write("POST / HTTP/1.1\r\nHost: up\r\nContent-Length: 0\r\n\r\n");
            upstream.awaitRequests(1, WAIT);
            assertThat(raw.isClosedByPeer(Duration.ofMillis(100))).isFalse();
            assertThat(upstream.openConnections()).isEqualTo(1);

            upstream.closeConnections();

            assertThat(raw.awaitPeerClose(WAIT)).isEqualTo(RawHttp.PeerClose.CLOSED);
        }
        assertThat(upstream.responsesStarted()).isZero();
    }

    @Test
    void dynamicChoosesFromTheRequest() throws Exception {
        upstream.defaultAction(UpstreamAction.dynamic(r -> respond(Integer.parseInt(r.header("X-Want")))));
        HttpResponse<String> res = client.send(HttpRequest.newBuilder(at("/")).timeout(WAIT).header("X-Want", "418").build(),
                BodyHandlers.ofString());
        assertThat(res.statusCode()).isEqualTo(418);
    }

    @Test
    void awaitRequestsReportsWhatArrivedOnTimeout() {
        assertThatThrownBy(() -> upstream.awaitRequests(1, Duration.ofMillis(20)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("got 0");
    }
}
