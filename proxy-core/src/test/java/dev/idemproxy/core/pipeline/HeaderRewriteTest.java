package dev.idemproxy.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.net.URI;
import org.junit.jupiter.api.Test;

class HeaderRewriteTest {
    final Route route = Route.passThrough("r", RouteMatch.ANY, URI.create("http://up.internal:9000/base"));

    @Test
    void requestLosesHopByHopHeadersAndGainsForwardedOnes() {
        HttpRequest req = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/x?y=1");
        req.headers().add("Host", "agent.local:8080").add("Connection", "keep-alive, X-Secret-Hop")
                .add("X-Secret-Hop", "1").add("Keep-Alive", "timeout=5").add("Proxy-Authorization", "Basic abc")
                .add("TE", "trailers").add("Upgrade", "h2c").add("X-Forwarded-For", "10.0.0.9")
                .add("Authorization", "Bearer t").add("Content-Length", "3");
        HeaderRewrite.toUpstream(req, route, "/x?y=1", "agent.local:8080", "127.0.0.1", "http");
        assertThat(req.uri()).isEqualTo("/base/x?y=1");
        assertThat(req.headers().get("Host")).isEqualTo("up.internal:9000");
        assertThat(req.headers().names()).doesNotContain("Connection", "X-Secret-Hop", "Keep-Alive", "Proxy-Authorization", "TE", "Upgrade");
        assertThat(req.headers().get("X-Forwarded-For")).isEqualTo("10.0.0.9, 127.0.0.1");
        assertThat(req.headers().get("X-Forwarded-Proto")).isEqualTo("http");
        assertThat(req.headers().get("X-Forwarded-Host")).isEqualTo("agent.local:8080");
        assertThat(req.headers().get("Authorization")).isEqualTo("Bearer t");
        assertThat(req.headers().get("Content-Length")).isEqualTo("3");
    }

    @Test
    void forwardedProtoIsTheSchemeTheClientSpokeNeverItsOwnClaim() {
        HttpRequest req = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/x");
        req.headers().add("Host", "api.example.com").add("X-Forwarded-Proto", "http");
        HeaderRewrite.toUpstream(req, route, "/x", "api.example.com", "127.0.0.1", "https");
        assertThat(req.headers().getAll("X-Forwarded-Proto")).containsExactly("https");
    }

    @Test
    void chunkedRequestStaysChunkedUpstream() {
        HttpRequest req = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/x");
        req.headers().add("Transfer-Encoding", "chunked");
        HeaderRewrite.toUpstream(req, route, "/x", null, "127.0.0.1", "http");
        assertThat(req.headers().get("Transfer-Encoding")).isEqualTo("chunked");
        assertThat(req.headers().contains("X-Forwarded-Host")).isFalse();
    }

    @Test
    void responseWithoutLengthIsChunkedForHttp11AndClosedForHttp10() {
        HttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_0, HttpResponseStatus.OK);
        r.headers().add("Connection", "close");
        assertThat(HeaderRewrite.toClient(r, HttpMethod.GET, HttpVersion.HTTP_1_1, false)).isFalse();
        assertThat(r.headers().get("Transfer-Encoding")).isEqualTo("chunked");
        assertThat(r.headers().contains("Connection")).isFalse();

        HttpResponse r10 = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        assertThat(HeaderRewrite.toClient(r10, HttpMethod.GET, HttpVersion.HTTP_1_0, false)).isTrue();
        assertThat(r10.headers().get("Connection")).isEqualTo("close");
    }

    @Test
    void noBodyResponsesKeepTheirFraming() {
        HttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NO_CONTENT);
        HeaderRewrite.toClient(r, HttpMethod.DELETE, HttpVersion.HTTP_1_1, false);
        assertThat(r.headers().contains("Transfer-Encoding")).isFalse();
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        head.headers().add("Content-Length", "42");
        HeaderRewrite.toClient(head, HttpMethod.HEAD, HttpVersion.HTTP_1_1, true);
        assertThat(head.headers().get("Content-Length")).isEqualTo("42");
        assertThat(head.headers().get("Connection")).isEqualTo("close");
    }

    @Test
    void everyHopByHopNameGoesInAnyCaseOnBothLegs() {
        String[] hop = {"CONNECTION", "keep-alive", "Proxy-Connection", "PROXY-AUTHENTICATE", "proxy-authorization", "Te",
            "trailer", "Upgrade"};
        HttpRequest req = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/x");
        HttpResponse resp = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        for (String name : hop) {
            req.headers().add(name, "v");
            resp.headers().add(name, "v");
        }
        req.headers().add("Host", "a").add("X-Kept", "1");
        resp.headers().add("Transfer-Encoding", "chunked").add("X-Kept", "1");
        HeaderRewrite.toUpstream(req, route, "/x", null, "127.0.0.1", "http");
        HeaderRewrite.toClient(resp, HttpMethod.GET, HttpVersion.HTTP_1_1, false);
        for (String name : hop) {
            assertThat(req.headers().contains(name)).as(name).isFalse();
            assertThat(resp.headers().contains(name)).as(name).isFalse();
        }
        assertThat(req.headers().get("X-Kept")).isEqualTo("1");
        assertThat(resp.headers().get("X-Kept")).isEqualTo("1");
        assertThat(resp.headers().getAll("Transfer-Encoding")).containsExactly("chunked");
    }

    @Test
    void aLengthTheConnectionHeaderNamesIsGoneSoTheBodyIsChunked() {
        HttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        r.headers().add("Connection", "content-length").add("Content-Length", "5");
        HeaderRewrite.toClient(r, HttpMethod.GET, HttpVersion.HTTP_1_1, false);
        assertThat(r.headers().contains("Content-Length")).isFalse();
        assertThat(r.headers().get("Transfer-Encoding")).isEqualTo("chunked");
    }

    @Test
    void aForgedForwardedHostIsRemovedWhenTheClientNamedNoHost() {
        HttpRequest req = new DefaultHttpRequest(HttpVersion.HTTP_1_0, HttpMethod.GET, "/x");
        req.headers().add("X-Forwarded-Host", "evil").add("X-Forwarded-Proto", "https");
        HeaderRewrite.toUpstream(req, route, "/x", null, "127.0.0.1", "http");
        assertThat(req.headers().contains("X-Forwarded-Host")).isFalse();
        assertThat(req.headers().getAll("X-Forwarded-Proto")).containsExactly("http");
    }

    @Test
    void everyLineOfTheClientsForwardedForChainIsKeptInOrderAndTheClientAppended() {
        HttpRequest req = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/x");
        req.headers().add("X-Forwarded-For", "10.0.0.1, 10.0.0.2").add("X-Forwarded-For", "").add("X-Forwarded-For", "10.0.0.3");
        HeaderRewrite.toUpstream(req, route, "/x", "a", "127.0.0.1", "http");
        assertThat(req.headers().getAll("X-Forwarded-For")).containsExactly("10.0.0.1, 10.0.0.2, 10.0.0.3, 127.0.0.1");
    }

    @Test
    void forwardedHeadersTheClientSentAreReplacedNotRepeated() {
        HttpRequest req = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/x");
        req.headers().add("Host", "a").add("x-forwarded-proto", "https").add("X-Forwarded-Host", "evil");
        HeaderRewrite.toUpstream(req, route, "/x", "a", "127.0.0.1", "http");
        assertThat(req.headers().getAll("X-Forwarded-Proto")).containsExactly("http");
        assertThat(req.headers().getAll("X-Forwarded-Host")).containsExactly("a");
        assertThat(req.headers().getAll("X-Forwarded-For")).containsExactly("127.0.0.1");
    }
}
