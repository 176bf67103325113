package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RawHttp;
import dev.idemproxy.core.testing.TestUpstream;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every bad input gets a clear answer on the wire, never a hang, a crash or a smuggled request. */
@ExtendWith(LeakDetection.class)
class BadInputIT {
    static TestUpstream upstream;
    static RunningProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
        upstream.defaultAction(respond(200, "ok"));
        proxy = RunningProxy.start(""
                + "limits: { idleTimeout: 1s, headTimeout: 1s, bodyTimeout: 1s }\n"
                + "routes:\n"
                + "  - name: protected\n"
                + "    match: { pathPrefix: /protected }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true }\n"
                + "  - name: main\n"
                + "    upstream: " + upstream.uri() + "\n");
    }

    @AfterAll
    static void stop() {
        proxy.close();
        upstream.close();
    }

    static RawHttp connect() throws Exception {
        return RawHttp.connect("127.0.0.1", proxy.port(), Duration.ofSeconds(10));
    }

    @Test
    void headerBlockOver16KiBIs431AndClosed() throws Exception {
        try (RawHttp raw = connect()) {
            raw.write("GET /x HTTP/1.1\r\nHost: a\r\nX-Big: " + "a".repeat(17 * 1024) + "\r\n\r\n");
            RawHttp.Response r = raw.readResponse();
            assertThat(r.status()).isEqualTo(431);
            assertThat(r.header("Content-Type")).isEqualTo("application/problem+json");
            assertThat(r.bodyAsString()).contains("urn:idemproxy:problem:header-too-large");
            assertThat(raw.awaitPeerClose(Duration.ofSeconds(5))).isNotEqualTo(RawHttp.PeerClose.OPEN);
        }
    }

    @Test
    void manyHeadersAddingUpOver16KiBAre431() throws Exception {
        StringBuilder sb = new StringBuilder("GET /x HTTP/1.1\r\nHost: a\r\n");
        for (int i = 0; i < 600; i++) {
            sb.append("X-H").append(i).append(": ").append("v".repeat(24)).append("\r\n");
        }
        try (RawHttp raw = connect()) {
            raw.write(sb.append("\r\n").toString());
            assertThat(raw.readResponse().status()).isEqualTo(431);
        }
    }

    @Test
    void malformedRequestLineIs400AndClosed() throws Exception {
        try (RawHttp raw = connect()) {
            raw.write("GARBAGE\r\n\r\n");
            RawHttp.Response r = raw.readResponse();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.header("Content-Type")).isEqualTo("application/problem+json");
            assertThat(r.bodyAsString()).contains("urn:idemproxy:problem:bad-request");
            assertThat(raw.awaitPeerClose(Duration.ofSeconds(5))).isNotEqualTo(RawHttp.PeerClose.OPEN);
        }
    }

    // RFC 9110 15.6.6: a version the proxy does not speak is 505, typed bad-request; it used to be forwarded.
    @ParameterizedTest
    @ValueSource(strings = {"/version HTTP/9.9", "/protected/version HTTP/9.9", "/version HTTP/2.0", "/version HTTP/0.9"})
    void unsupportedHttpVersionIs505ClosedAndNotForwarded(String targetAndVersion) throws Exception {
        int before = upstream.requestCount();
        String version = targetAndVersion.substring(targetAndVersion.indexOf(' ') + 1);
        try (RawHttp raw = connect()) {
            raw.write("GET " + targetAndVersion + "\r\nHost: a\r\n\r\nGET /version-smuggled HTTP/1.1\r\nHost: a\r\n\r\n");
            RawHttp.Response r = raw.readResponse();
            assertThat(r.version()).isEqualTo("HTTP/1.1");
            assertThat(r.status()).isEqualTo(505);
            assertThat(r.header("Content-Type")).isEqualTo("application/problem+json");
            assertThat(r.header("Connection")).isEqualTo("close");
            assertThat(r.bodyAsString()).contains("\"type\":\"urn:idemproxy:problem:bad-request\"").contains("\"status\":505")
                    .contains("HTTP version " + version + " is unsupported");
            assertThat(raw.awaitPeerClose(Duration.ofSeconds(5))).isNotEqualTo(RawHttp.PeerClose.OPEN);
        }
        assertNothingReachedUpstreamSince(before, "/version");
        assertNothingReachedUpstreamSince(before, "/protected/version");
    }

    @Test
    void aHostThatIsNotHostAndPortIs400AndAnotherTransferCodingIs501() throws Exception {
        int before = upstream.requestCount();
        try (RawHttp raw = connect()) {
            raw.write("GET /badhost HTTP/1.1\r\nHost: a b\r\n\r\n");
            RawHttp.Response r = raw.readResponse();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.bodyAsString()).contains("urn:idemproxy:problem:bad-request").contains("Host header");
            assertThat(raw.isClosedByPeer(Duration.ofSeconds(5))).isTrue();
        }
        try (RawHttp raw = connect()) {
            raw.write("POST /gzipped HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
            RawHttp.Response r = raw.readResponse();
            assertThat(r.status()).isEqualTo(501);
            assertThat(r.bodyAsString()).contains("urn:idemproxy:problem:bad-request").contains("gzip, chunked");
            assertThat(raw.isClosedByPeer(Duration.ofSeconds(5))).isTrue();
        }
        assertNothingReachedUpstreamSince(before, "/badhost");
        assertNothingReachedUpstreamSince(before, "/gzipped");
    }

    @Test
    void malformedVersionIsStill400AndHttp10IsServed() throws Exception {
        try (RawHttp raw = connect()) {
            raw.write("GET /x HTTPS/1.1\r\nHost: a\r\n\r\n");
            RawHttp.Response r = raw.readResponse();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.bodyAsString()).contains("urn:idemproxy:problem:bad-request");
        }
        try (RawHttp raw = connect()) {
            raw.write("GET /x HTTP/1.0\r\nHost: a\r\n\r\n");
            assertThat(raw.readResponse().status()).isEqualTo(200);
        }
    }

    @Test
    void malformedHeaderIs400() throws Exception {
        try (RawHttp raw = connect()) {
            raw.write("GET /x HTTP/1.1\r\nHost: a\r\nBad Header Name: x\r\n\r\n");
            RawHttp.Response r = raw.readResponse();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.header("Content-Type")).isEqualTo("application/problem+json");
            assertThat(r.bodyAsString()).contains("urn:idemproxy:problem:bad-request");
        }
    }

    @Test
    void headerNameOutsideTheTokenCharactersIs400AndNotForwarded() throws Exception {
        int before = upstream.requestCount();
        for (String name : List.of("X-Bad@Name", "X-Bad(Name)", "X-Bad/Name", "X-Bad\"Name", "X-Bad\u00e9")) {
            try (RawHttp raw = connect()) {
                raw.write("GET /x HTTP/1.1\r\nHost: a\r\n" + name + ": x\r\n\r\n");
                RawHttp.Response r = raw.readResponse();
                assertThat(r.status()).as(name).isEqualTo(400);
                assertThat(r.bodyAsString()).as(name).contains("urn:idemproxy:problem:bad-request");
            }
        }
        try (RawHttp raw = connect()) {  // the same request with a good name is forwarded
            raw.write("GET /x HTTP/1.1\r\nHost: a\r\nX-Good~Name: x\r\n\r\n");
            assertThat(raw.readResponse().status()).isEqualTo(200);
        }
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
    }

    @Test
    void missingHostOnHttp11Is400() throws Exception {
        try (RawHttp raw = connect()) {
            raw.write("GET /x HTTP/1.1\r\n\r\n");
            assertThat(raw.readResponse().status()).isEqualTo(400);
        }
    }

    @Test
    void contentLengthWithTransferEncodingIs400ClosedAndNothingIsSmuggled() throws Exception {
        int before = upstream.requestCount();
        try (RawHttp raw = connect()) {
            raw.write("POST /smuggle-carrier HTTP/1.1\r\nHost: a\r\nContent-Length: 44\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n");
            RawHttp.Response r = raw.readResponse();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.header("Content-Type")).isEqualTo("application/problem+json");
            assertThat(r.bodyAsString()).contains("urn:idemproxy:problem:bad-request");
            assertThat(raw.awaitPeerClose(Duration.ofSeconds(5))).isNotEqualTo(RawHttp.PeerClose.OPEN);
        }
        assertNothingReachedUpstreamSince(before);
    }

    @Test
    void conflictingContentLengthsAre400AndClosed() throws Exception {
        int before = upstream.requestCount();
        try (RawHttp raw = connect()) {
            raw.write("POST /smuggle-carrier HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 30\r\n\r\nabcGET /smuggled HTTP/1.1\r\n\r\n");
            RawHttp.Response r = raw.readResponse();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.header("Content-Type")).isEqualTo("application/problem+json");
            assertThat(r.bodyAsString()).contains("urn:idemproxy:problem:bad-request");
            assertThat(raw.awaitPeerClose(Duration.ofSeconds(5))).isNotEqualTo(RawHttp.PeerClose.OPEN);
        }
        assertNothingReachedUpstreamSince(before);
    }

    @Test
    void connectIsRefusedWith405() throws Exception {
        try (RawHttp raw = connect()) {
            raw.write("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
            RawHttp.Response r = raw.readResponse();
            assertThat(r.status()).isEqualTo(405);
            assertThat(r.header("Content-Type")).isEqualTo("application/problem+json");
        }
    }

    @Test
    void idleClientConnectionIsClosed() throws Exception {
        try (RawHttp raw = connect()) {
            raw.write("GET /x HTTP/1.1\r\nHost: a\r\n\r\n");
            assertThat(raw.readResponse().status()).isEqualTo(200);
            // limits.idleTimeout is 1s: the keep-alive connection is closed by the proxy, not by us.
            assertThat(raw.awaitPeerClose(Duration.ofSeconds(8))).isEqualTo(RawHttp.PeerClose.CLOSED);
        }
    }

    @Test
    void silentConnectionThatNeverSendsIsClosed() throws Exception {
        try (RawHttp raw = connect()) {
            assertThat(raw.awaitPeerClose(Duration.ofSeconds(8))).isEqualTo(RawHttp.PeerClose.CLOSED);
        }
    }

    @Test
    void proxyServesNormallyAfterBadInput() throws Exception {
        try (RawHttp raw = connect()) {
            raw.write("GET /fine HTTP/1.1\r\nHost: a\r\n\r\n");
            assertThat(raw.readResponse().status()).isEqualTo(200);
        }
    }

    // Found by FuzzIT: a body that fails to decode used to end the request as if it were complete,
    // so the upstream executed it with a truncated body and the client got its 200.
    @ParameterizedTest
    @ValueSource(strings = {"/bad-chunk", "/protected/bad-chunk"})
    void invalidChunkSizeIs400ClosedAndNothingReachesUpstream(String path) throws Exception {
        int before = upstream.requestCount();
        try (RawHttp raw = connect()) {
            raw.write("POST " + path + " HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "3\r\nabc\r\nzz\r\nabc\r\n0\r\n\r\n");
            RawHttp.Response r = raw.readResponse();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.bodyAsString()).contains("urn:idemproxy:problem:bad-request");
            assertThat(raw.awaitPeerClose(Duration.ofSeconds(5))).isNotEqualTo(RawHttp.PeerClose.OPEN);
        }
        assertNothingReachedUpstreamSince(before, path);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/cut-short", "/protected/cut-short"})
    void bodyCutShortByTheClientClosingNeverReachesUpstream(String path) throws Exception {
        int before = upstream.requestCount();
        try (RawHttp raw = connect()) {
            raw.write("POST " + path + " HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
            raw.shutdownOutput();
            assertThat(raw.readUntilClose()).asString().doesNotStartWith("HTTP/1.1 2");
        }
        assertNothingReachedUpstreamSince(before, path);
    }

    // Found by FuzzIT: a protected call buffers its body, and a client that stopped sending it
    // kept the connection (and the buffer) forever: the idle close skipped connections with a call open.
    // Since limits.bodyTimeout (issue #34) such a client is answered 408, then closed.
    @ParameterizedTest
    @ValueSource(strings = {"/stalled", "/protected/stalled"})
    void clientStallingMidBodyIsAnswered408AndClosedAfterTheBodyTimeout(String path) throws Exception {
        int before = upstream.requestCount();
        try (RawHttp raw = connect()) {
            raw.write("POST " + path + " HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc");
            // limits.bodyTimeout is 1s.
            RawHttp.Response r = raw.readResponse();
            assertThat(r.status()).isEqualTo(408);
            assertThat(r.bodyAsString()).contains("urn:idemproxy:problem:bad-request");
            assertThat(raw.awaitPeerClose(Duration.ofSeconds(8))).isNotEqualTo(RawHttp.PeerClose.OPEN);
        }
        assertNothingReachedUpstreamSince(before, path);
    }

    // Found by FuzzIT: the decoder splits the request line on whitespace only, so a NUL in the
    // target was forwarded upstream, and a raw non-ASCII octet was re-encoded as UTF-8 on the way.
    @ParameterizedTest
    @ValueSource(strings = {"\0", "\u007f", "\u00ff"})
    void targetThatIsNotVisibleAsciiIs400AndClosed(String octet) throws Exception {
        int before = upstream.requestCount();
        try (RawHttp raw = connect()) {
            raw.write("GET /nul" + octet + "x HTTP/1.1\r\nHost: a\r\n\r\n");
            RawHttp.Response r = raw.readResponse();
            assertThat(r.status()).isEqualTo(400);
            assertThat(raw.awaitPeerClose(Duration.ofSeconds(5))).isNotEqualTo(RawHttp.PeerClose.OPEN);
        }
        assertNothingReachedUpstreamSince(before, "/nul");
    }

    private static void assertNothingReachedUpstreamSince(int before, String path) throws Exception {
        try (RawHttp raw = connect()) {
            raw.write("GET /marker HTTP/1.1\r\nHost: a\r\n\r\n");
            assertThat(raw.readResponse().status()).isEqualTo(200);
        }
        assertThat(upstream.awaitRequests(before + 1, Duration.ofSeconds(5)))
                .extracting(r -> r.uri()).noneMatch(u -> u.startsWith(path));
    }

    private static void assertNothingReachedUpstreamSince(int before) throws Exception {
        // A request that would reach the upstream after ours proves the pipe is drained in order.
        try (RawHttp raw = connect()) {
            raw.write("GET /marker HTTP/1.1\r\nHost: a\r\n\r\n");
            assertThat(raw.readResponse().status()).isEqualTo(200);
        }
        assertThat(upstream.awaitRequests(before + 1, Duration.ofSeconds(5)))
                .extracting(r -> r.uri()).doesNotContain("/smuggled", "/smuggle-carrier");
    }
}
