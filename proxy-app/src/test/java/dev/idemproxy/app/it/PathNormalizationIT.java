package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RawHttp;
import dev.idemproxy.core.testing.RecordedRequest;
import dev.idemproxy.core.testing.TestUpstream;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Routes match the normalised path, and the upstream receives it: {@code /u/../admin} is the
 * {@code /admin} route's call, never the {@code /u/} route's forwarded as sent. Each route has
 * its own upstream base path, so the path the upstream receives tells which route forwarded it.
 */
@ExtendWith(LeakDetection.class)
class PathNormalizationIT {
    static TestUpstream upstream;
    static RunningProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
        upstream.defaultAction(respond(200, "ok"));
        proxy = RunningProxy.start(""
                + "routes:\n"
                + "  - name: user\n"
                + "    match: { pathPrefix: /u/ }\n"
                + "    upstream: " + upstream.uri() + "/via-user\n"
                + "  - name: admin\n"
                + "    match: { pathPrefix: /admin, methods: [GET] }\n"
                + "    upstream: " + upstream.uri() + "/via-admin\n"
                + "  - name: tools-admin\n"
                + "    match: { host: tools.internal, pathPrefix: /admin }\n"
                + "    upstream: " + upstream.uri() + "/via-tools\n"
                + "  - name: derived\n"
                + "    match: { pathPrefix: /d/ }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true, key: { derive: [method, path, header:X-Task-Id] } }\n");
    }

    @AfterAll
    static void stop() {
        proxy.close();
        upstream.close();
    }

    static RawHttp.Response send(String requestHead) throws Exception {
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port(), Duration.ofSeconds(10))) {
            raw.write(requestHead);
            return raw.readResponse();
        }
    }

    static RecordedRequest onlyRequestSince(int before) throws InterruptedException {
        RecordedRequest seen = upstream.awaitRequests(before + 1, Duration.ofSeconds(5)).get(before);
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
        return seen;
    }

    @Test
    void aDotDotOutOfAPrefixIsRoutedByTheRouteOfWhereItLeads() throws Exception {
        int before = upstream.requestCount();
        assertThat(send("GET /u/../admin/users HTTP/1.1\r\nHost: a\r\n\r\n").status()).isEqualTo(200);
        assertThat(onlyRequestSince(before).uri()).isEqualTo("/via-admin/admin/users");
    }

    @Test
    void escapedDotsAndUnreservedCharactersAreDecodedAndTheQueryIsKeptAsSent() throws Exception {
        int before = upstream.requestCount();
        assertThat(send("GET /u/%2E%2e/admin/%7Eops?next=/u/../x&v=%7E HTTP/1.1\r\nHost: a\r\n\r\n").status()).isEqualTo(200);
        assertThat(onlyRequestSince(before).uri()).isEqualTo("/via-admin/admin/~ops?next=/u/../x&v=%7E");
    }

    @Test
    void anAbsoluteFormTargetIsNormalisedToo() throws Exception {
        // An absolute-form request matches only routes that name its host (CONTRACT §3).
        int before = upstream.requestCount();
        assertThat(send("GET http://tools.internal/u/./x/../../admin HTTP/1.1\r\nHost: tools.internal\r\n\r\n").status())
                .isEqualTo(200);
        assertThat(onlyRequestSince(before).uri()).isEqualTo("/via-tools/admin");
    }

    @Test
    void aPathThatLeavesEveryPrefixIsNoRouteAndAboveTheRootStaysAtTheRoot() throws Exception {
        int before = upstream.requestCount();
        RawHttp.Response r = send("GET /u/../../../etc/passwd HTTP/1.1\r\nHost: a\r\n\r\n");
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.header("Content-Type")).isEqualTo("application/problem+json");
        assertThat(r.bodyAsString()).contains("urn:idemproxy:problem:no-route").contains("/etc/passwd")
                .doesNotContain("..");
        RawHttp.Response post = send("POST /u/../admin HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}");
        assertThat(post.status()).as("the admin route takes GET only").isEqualTo(404);
        assertThat(upstream.requestCount()).isEqualTo(before);
    }

    @Test
    void aPathInsideItsPrefixStillGoesThere() throws Exception {
        int before = upstream.requestCount();
        assertThat(send("GET /u/a/./b/../c%2Fd HTTP/1.1\r\nHost: a\r\n\r\n").status()).isEqualTo(200);
        assertThat(onlyRequestSince(before).uri()).isEqualTo("/via-user/u/a/c%2Fd");
    }

    @Test
    void aMalformedEscapeInThePathIs400NotForwardedAndTheConnectionGoesOn() throws Exception {
        int before = upstream.requestCount();
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port(), Duration.ofSeconds(10))) {
            for (String target : new String[] {"/u/%zz", "/u/a%4", "/admin/%", "/u/%2?q=1"}) {
                raw.write("GET " + target + " HTTP/1.1\r\nHost: a\r\n\r\n");
                RawHttp.Response r = raw.readResponse();
                assertThat(r.status()).as(target).isEqualTo(400);
                assertThat(r.header("Content-Type")).isEqualTo("application/problem+json");
                assertThat(r.bodyAsString()).as(target).contains("urn:idemproxy:problem:bad-request")
                        .contains("malformed percent-encoding in the request path");
            }
            assertThat(upstream.requestCount()).isEqualTo(before);
            raw.write("GET /u/ok?v=100% HTTP/1.1\r\nHost: a\r\n\r\n");
            assertThat(raw.readResponse().status()).as("a '%' in the query is the query's business").isEqualTo(200);
        }
        assertThat(onlyRequestSince(before).uri()).isEqualTo("/via-user/u/ok?v=100%");
    }

    @Test
    void aFragmentInTheTargetIs400NotForwarded() throws Exception {
        int before = upstream.requestCount();
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port(), Duration.ofSeconds(10))) {
            for (String target : new String[] {"/u/#/../admin/x", "/u/a?q=1#f", "http://a/u/b#c"}) {
                raw.write("GET " + target + " HTTP/1.1\r\nHost: a\r\n\r\n");
                RawHttp.Response r = raw.readResponse();
                assertThat(r.status()).as(target).isEqualTo(400);
                assertThat(r.bodyAsString()).as(target).contains("urn:idemproxy:problem:bad-request")
                        .contains("a fragment ('#') in the request target");
            }
        }
        assertThat(upstream.requestCount()).isEqualTo(before);
    }

    @Test
    void equivalentPathsDeriveTheSameKey() throws Exception {
        int before = upstream.requestCount();
        String task = "task-" + System.nanoTime();
        RawHttp.Response first = send("POST /d/tickets HTTP/1.1\r\nHost: a\r\nX-Task-Id: " + task
                + "\r\nContent-Length: 2\r\n\r\n{}");
        RawHttp.Response second = send("POST /d/x/../%74ickets HTTP/1.1\r\nHost: a\r\nX-Task-Id: " + task
                + "\r\nContent-Length: 2\r\n\r\n{}");
        assertThat(first.status()).isEqualTo(200);
        assertThat(first.header("Idempotent-Replayed")).isNull();
        assertThat(second.status()).isEqualTo(200);
        assertThat(second.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(second.header("X-Call-Id")).isEqualTo(first.header("X-Call-Id"));
        RecordedRequest seen = onlyRequestSince(before);
        assertThat(seen.uri()).isEqualTo("/d/tickets");
    }
}
