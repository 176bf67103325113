package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.delayHead;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RawHttp;
import dev.idemproxy.core.testing.RecordedRequest;
import dev.idemproxy.core.testing.TestUpstream;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * The front against slow and hostile clients (docs/configuration.md {@code limits}, §12), end to end: the
 * real proxy on loopback, a real upstream, raw sockets that trickle their bytes. Timeouts are a
 * few hundred milliseconds; every wait is bounded and for an event (an answer, a close, a line).
 */
@ExtendWith(LeakDetection.class)
class FrontLimitsIT {
    /** How a trickling client paces its bytes: well inside every timeout, so only a whole-phase budget can stop it. */
    static final Duration TRICKLE = Duration.ofMillis(40);
    /** The longest any answer or close may take to show up: far above every configured timeout. */
    static final Duration AWAIT = Duration.ofSeconds(10);
    /** A call-log line (docs/operations.md); fields added after {@code ms=} are allowed. */
    static final Pattern CALL_LINE = Pattern.compile(
            "^\\[call=\\S+]\\[biz=\\S+]\\[try=\\d+] route=(\\S+) key=\\S+ status=(\\d+) outcome=(\\S+) ms=\\d+(?:.* reason=(\\S+))?.*$");

    static TestUpstream upstream;
    static RunningProxy proxy;
    static final ListAppender<ILoggingEvent> calls = new ListAppender<>();
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() throws Exception {
        ((Logger) LoggerFactory.getLogger("idemproxy.calls")).addAppender(calls);
        calls.start();
        upstream = TestUpstream.start();
        proxy = RunningProxy.start(limits("") + routes());
    }

    static String limits(String extra) {
        return "limits: { headTimeout: 300ms, bodyTimeout: 300ms, idleTimeout: 300ms" + extra + " }\n";
    }

    static String routes() {
        return "routes:\n"
                + "  - name: passbody\n"
                + "    match: { pathPrefix: /passbody }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "  - name: protbody\n"
                + "    match: { pathPrefix: /protbody }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true }\n"
                + "  - name: badchunk\n"
                + "    match: { pathPrefix: /badchunk }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "  - name: main\n"
                + "    upstream: " + upstream.uri() + "\n";
    }

    @AfterAll
    static void stop() {
        proxy.close();
        upstream.close();
        ((Logger) LoggerFactory.getLogger("idemproxy.calls")).detachAppender(calls);
    }

    @Test
    void aHeadTrickledOneByteAtATimeIsCutOffAtTheHeadTimeoutWith408() throws Exception {
        double before = frontRejections(proxy, "head_timeout");
        int lines = lines("route=none", "reason=head_timeout").size();
        byte[] head = ("GET /main/slowloris HTTP/1.1\r\nHost: a\r\nX-Padding: " + "p".repeat(200) + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        try (RawHttp raw = connect(proxy)) {
            Trickle trickle = Trickle.start(raw, head);
            RawHttp.Response r = raw.readResponse();
            int sent = trickle.sent.get();

            assertThat(r.status()).isEqualTo(408);
            assertThat(r.header("Content-Type")).isEqualTo("application/problem+json");
            assertThat(r.header("Connection")).isEqualTo("close");
            assertThat(r.bodyAsString()).contains("\"type\":\"urn:idemproxy:problem:bad-request\"", "\"status\":408",
                    "limits.headTimeout (300 ms)");
            assertThat(raw.awaitPeerClose(AWAIT)).isNotEqualTo(RawHttp.PeerClose.OPEN);
            assertThat(sent).as("cut off mid-head, though a byte came every 40 ms").isBetween(2, head.length - 1);
        }
        assertThat(upstream.requests()).noneMatch(q -> q.uri().contains("slowloris"));
        awaitTrue("the rejection's line", () -> lines("route=none", "reason=head_timeout").size() == lines + 1);
        assertThat(parse(lines("route=none", "reason=head_timeout").get(lines)))
                .containsExactly("none", "408", "rejected", "head_timeout");
        assertThat(frontRejections(proxy, "head_timeout")).isEqualTo(before + 1);
    }

    @Test
    void aBodyTrickledOneByteAtATimeIsCutOffAtTheBodyTimeoutWith408OnBothKindsOfRoute() throws Exception {
        for (String route : List.of("passbody", "protbody")) {
            double before = frontRejections(proxy, "body_timeout");
            byte[] body = "b".repeat(500).getBytes(StandardCharsets.US_ASCII);
            try (RawHttp raw = connect(proxy)) {
                raw.write("POST /" + route + "/upload HTTP/1.1\r\nHost: a\r\nContent-Length: " + body.length + "\r\n\r\n");
                Trickle trickle = Trickle.start(raw, body);
                RawHttp.Response r = raw.readResponse();
                int sent = trickle.sent.get();

                assertThat(r.status()).as(route).isEqualTo(408);
                assertThat(r.bodyAsString()).as(route).contains("limits.bodyTimeout (300 ms)");
                assertThat(raw.awaitPeerClose(AWAIT)).as(route).isNotEqualTo(RawHttp.PeerClose.OPEN);
                assertThat(sent).as(route + ": cut off mid-body").isBetween(2, body.length - 1);
            }
            awaitTrue("the line of " + route, () -> lines("route=" + route + " ").size() == 1);
            assertThat(parse(lines("route=" + route + " ").get(0)))
                    .as("one line, under its route").containsExactly(route, "408", "rejected", "body_timeout");
            assertThat(frontRejections(proxy, "body_timeout")).isEqualTo(before + 1);
        }
        // The upstream never saw a whole request: the pass-through one was cut off on its way.
        assertThat(upstream.requests()).noneMatch(q -> q.uri().contains("/upload"));
    }

    @Test
    void aKeepAliveConnectionIdleForTheIdleTimeoutIsClosedButASlowUpstreamIsNotIdleness() throws Exception {
        upstream.enqueue(delayHead(Duration.ofMillis(1200), respond(200, "slow but fine")));
        try (RawHttp raw = connect(proxy)) {
            // The upstream takes four idle timeouts to answer: a call in flight is not an idle connection.
            raw.write("GET /main/slow-upstream HTTP/1.1\r\nHost: a\r\n\r\n");
            RawHttp.Response r = raw.readResponse();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bodyAsString()).isEqualTo("slow but fine");
            assertThat(r.header("Connection")).isNull();

            assertThat(raw.awaitPeerClose(AWAIT)).as("closed by the proxy once idle").isEqualTo(RawHttp.PeerClose.CLOSED);
        }
    }

    @Test
    void aBodyFailingToDecodeOnAPassThroughCallIsLoggedRejectedWithItsStatus() throws Exception {
        double before = frontRejections(proxy, "malformed");
        try (RawHttp raw = connect(proxy)) {
            // The head starts a pass-through call; the bad chunk size after it ends the call unfinished.
            raw.write("POST /badchunk/x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\n");
            assertThat(raw.readResponse().status()).isEqualTo(400);
        }
        awaitTrue("the call's line", () -> lines("route=badchunk ").size() == 1);
        assertThat(parse(lines("route=badchunk ").get(0))).containsExactly("badchunk", "400", "rejected", "malformed");
        assertThat(lines("status=0 ")).as("no call is logged without a status").isEmpty();
        assertThat(frontRejections(proxy, "malformed")).isEqualTo(before + 1);
    }

    @Test
    void headerNamesWithUnderscoresAreDroppedByDefaultForwardedOrRefusedAsConfigured() throws Exception {
        String request = "POST /main/underscore HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nTransfer_Encoding: chunked\r\n"
                + "X_Forwarded_Host: evil.example\r\nX-Mark: %s\r\n\r\nok";
        try (RawHttp raw = connect(proxy)) {
            raw.write(request.formatted("drop"));
            assertThat(raw.readResponse().status()).isEqualTo(200);
        }
        RecordedRequest dropped = received("drop");
        assertThat(dropped.headers()).noneMatch(h -> h.name().contains("_"));
        assertThat(dropped.bodyAsString()).isEqualTo("ok");

        try (RunningProxy forwarding = RunningProxy.start(limits(", underscoreHeaders: forward") + routes());
                RawHttp raw = connect(forwarding)) {
            raw.write(request.formatted("forward"));
            assertThat(raw.readResponse().status()).isEqualTo(200);
        }
        RecordedRequest forwarded = received("forward");
        assertThat(forwarded.header("Transfer_Encoding")).isEqualTo("chunked");
        assertThat(forwarded.header("X_Forwarded_Host")).isEqualTo("evil.example");

        int seen = upstream.requestCount();
        try (RunningProxy refusing = RunningProxy.start(limits(", underscoreHeaders: reject") + routes())) {
            try (RawHttp raw = connect(refusing)) {
                raw.write(request.formatted("reject"));
                RawHttp.Response r = raw.readResponse();
                assertThat(r.status()).isEqualTo(400);
                assertThat(r.bodyAsString()).contains("urn:idemproxy:problem:bad-request", "header name 'Transfer_Encoding'");
                assertThat(raw.awaitPeerClose(AWAIT)).isNotEqualTo(RawHttp.PeerClose.OPEN);
            }
            assertThat(frontRejections(refusing, "malformed")).isEqualTo(1);
        }
        assertThat(upstream.requests().subList(seen, upstream.requestCount())).noneMatch(q -> "reject".equals(q.header("X-Mark")));
    }

    @Test
    void forwardedHostAndProtoAreWhatTheProxySawAndForwardedForIsAppendedTo() throws Exception {
        try (RawHttp raw = connect(proxy)) {
            raw.write("GET /main/forwarded HTTP/1.1\r\nHost: agent.local:8080\r\nX-Forwarded-Host: evil.example\r\n"
                    + "X-Forwarded-Proto: https\r\nX-Forwarded-For: 10.9.9.9\r\nX-Mark: forged\r\n\r\n");
            assertThat(raw.readResponse().status()).isEqualTo(200);
            // An HTTP/1.0 request may name no host at all: a forged X-Forwarded-Host is then removed, not kept.
            raw.write("GET /main/forwarded HTTP/1.0\r\nConnection: keep-alive\r\nX-Forwarded-Host: evil.example\r\n"
                    + "X-Mark: hostless\r\n\r\n");
            assertThat(raw.readResponse().status()).isEqualTo(200);
        }
        RecordedRequest forged = received("forged");
        assertThat(forged.headerValues("X-Forwarded-Host")).containsExactly("agent.local:8080");
        assertThat(forged.headerValues("X-Forwarded-Proto")).containsExactly("http");
        assertThat(forged.headerValues("X-Forwarded-For")).containsExactly("10.9.9.9, 127.0.0.1");
        RecordedRequest hostless = received("hostless");
        assertThat(hostless.headerValues("X-Forwarded-Host")).isEmpty();
        assertThat(hostless.headerValues("X-Forwarded-Proto")).containsExactly("http");
    }

    @Test
    void connectionsBeyondMaxConnectionsAreClosedOnAcceptAndCountedAndTheSlotComesBack() throws Exception {
        try (RunningProxy capped = RunningProxy.start(limits(", maxConnections: 2") + routes())) {
            String metrics = get(capped.admin("/metrics"));
            for (String reason : List.of("head_timeout", "body_timeout", "max_connections", "malformed", "too_large")) {
                assertThat(metrics).contains("idemproxy_front_rejections_total{reason=\"" + reason + "\"} 0.0");
            }
            assertThat(metrics).contains("# HELP idemproxy_front_rejections_total ");
            List<RawHttp> open = new ArrayList<>();
            try {
                for (int i = 0; i < 2; i++) {
                    RawHttp raw = connect(capped);
                    open.add(raw);
                    raw.write("GET /main/capped-" + i + " HTTP/1.1\r\nHost: a\r\n\r\n");
                    assertThat(raw.readResponse().status()).isEqualTo(200);
                }
                try (RawHttp third = connect(capped)) {
                    assertThat(third.awaitPeerClose(AWAIT)).as("closed at once, nothing answered")
                            .isNotEqualTo(RawHttp.PeerClose.OPEN);
                }
                assertThat(frontRejections(capped, "max_connections")).isEqualTo(1);
                for (RawHttp raw : open) {  // the two keep theirs meanwhile
                    raw.write("GET /main/still HTTP/1.1\r\nHost: a\r\n\r\n");
                    assertThat(raw.readResponse().status()).isEqualTo(200);
                }
            } finally {
                for (RawHttp raw : open) {
                    raw.close();
                }
            }
            // Once the proxy has seen them close, new connections are served again.
            awaitTrue("a connection served after the others closed", () -> servedOnNewConnection(capped));
        }
    }

    @Test
    void aHeadTooLargeAndGarbageAreCountedAndLoggedAsTheFrontsRejections() throws Exception {
        double tooLarge = frontRejections(proxy, "too_large");
        double malformed = frontRejections(proxy, "malformed");
        int before = lines("route=none", "outcome=rejected").size();
        try (RawHttp raw = connect(proxy)) {
            raw.write("GET /main/x HTTP/1.1\r\nHost: a\r\nX-Big: " + "a".repeat(17 * 1024) + "\r\n\r\n");
            assertThat(raw.readResponse().status()).isEqualTo(431);
        }
        try (RawHttp raw = connect(proxy)) {
            raw.write("GARBAGE\r\n\r\n");
            assertThat(raw.readResponse().status()).isEqualTo(400);
        }
        awaitTrue("two lines", () -> lines("route=none", "outcome=rejected").size() >= before + 2);
        List<List<String>> parsed = lines("route=none", "outcome=rejected").stream().skip(before).map(FrontLimitsIT::parse).toList();
        assertThat(parsed).contains(List.of("none", "431", "rejected", "too_large"), List.of("none", "400", "rejected", "malformed"));
        assertThat(frontRejections(proxy, "too_large")).isEqualTo(tooLarge + 1);
        assertThat(frontRejections(proxy, "malformed")).isEqualTo(malformed + 1);
    }

    // ------------------------------------------------------------------ helpers

    /** A client writing {@code bytes} one at a time, {@link #TRICKLE} apart, on its own thread, until done or cut off. */
    static final class Trickle {
        final AtomicInteger sent = new AtomicInteger();

        static Trickle start(RawHttp raw, byte[] bytes) {
            Trickle t = new Trickle();
            Thread thread = new Thread(() -> {
                try {
                    for (byte b : bytes) {
                        raw.write(new byte[] {b});
                        t.sent.incrementAndGet();
                        LockSupport.parkNanos(TRICKLE.toNanos());  // paces the sender; it synchronises nothing
                    }
                } catch (IOException e) {
                    // the connection was closed (by the proxy, or by the test when done): the writer ends
                }
            }, "trickle");
            thread.setDaemon(true);
            thread.start();
            return t;
        }
    }

    static RawHttp connect(RunningProxy p) throws IOException {
        return RawHttp.connect("127.0.0.1", p.port(), AWAIT);
    }

    static boolean servedOnNewConnection(RunningProxy p) {
        try (RawHttp raw = connect(p)) {
            raw.write("GET /main/again HTTP/1.1\r\nHost: a\r\n\r\n");
            return raw.readResponse().status() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    static RecordedRequest received(String mark) throws Exception {
        awaitTrue("the upstream receiving " + mark, () -> upstream.requests().stream().anyMatch(q -> mark.equals(q.header("X-Mark"))));
        return upstream.requests().stream().filter(q -> mark.equals(q.header("X-Mark"))).findFirst().orElseThrow();
    }

    static String get(java.net.URI uri) throws Exception {
        return client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    static double frontRejections(RunningProxy p, String reason) throws Exception {
        Matcher m = Pattern.compile("(?m)^idemproxy_front_rejections_total\\{reason=\"" + reason + "\"} (\\S+)$")
                .matcher(get(p.admin("/metrics")));
        assertThat(m.find()).as("front_rejections{reason=%s} on /metrics", reason).isTrue();
        return Double.parseDouble(m.group(1));
    }

    /** The call-log lines containing every one of {@code parts}, in order. */
    static List<String> lines(String... parts) {
        List<String> out = new ArrayList<>();
        synchronized (calls) {
            for (ILoggingEvent e : List.copyOf(calls.list)) {
                String line = e.getFormattedMessage();
                if (List.of(parts).stream().allMatch(line::contains)) {
                    out.add(line);
                }
            }
        }
        return out;
    }

    /** route, status, outcome and reason of a call line. */
    static List<String> parse(String line) {
        Matcher m = CALL_LINE.matcher(line);
        assertThat(m.matches()).as("a call line: %s", line).isTrue();
        return List.of(m.group(1), m.group(2), m.group(3), String.valueOf(m.group(4)));
    }

    static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        long until = System.nanoTime() + AWAIT.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - until).as("waited " + AWAIT + " for " + what).isNegative();
            TimeUnit.MILLISECONDS.sleep(10);  // polling interval of a condition with a deadline
        }
    }
}
