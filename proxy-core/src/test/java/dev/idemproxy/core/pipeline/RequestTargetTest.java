package dev.idemproxy.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RequestTargetTest {
    @Test
    void originFormUsesHostHeader() {
        RequestTarget t = RequestTarget.of("/api/x?q=1", "Tickets.Internal:8080");
        assertThat(t.host()).isEqualTo("tickets.internal");
        assertThat(t.authority()).isEqualTo("Tickets.Internal:8080");
        assertThat(t.path()).isEqualTo("/api/x");
        assertThat(t.pathAndQuery()).isEqualTo("/api/x?q=1");
    }

    @Test
    void absoluteFormUsesTheUriAuthority() {
        RequestTarget t = RequestTarget.of("http://api.example.com:9000/v1/items?id=3", "ignored");
        assertThat(t.host()).isEqualTo("api.example.com");
        assertThat(t.authority()).isEqualTo("api.example.com:9000");
        assertThat(t.path()).isEqualTo("/v1/items");
        assertThat(t.pathAndQuery()).isEqualTo("/v1/items?id=3");
    }

    @Test
    void absoluteFormWithoutPathGetsRoot() {
        assertThat(RequestTarget.of("http://h", null).pathAndQuery()).isEqualTo("/");
        assertThat(RequestTarget.of("HTTP://h?x=1", null).pathAndQuery()).isEqualTo("/?x=1");
    }

    @Test
    void ipv6AndTrailingDotHostsAreNormalised() {
        assertThat(RequestTarget.hostOf("[::1]:8080")).isEqualTo("::1");
        assertThat(RequestTarget.hostOf("example.com.")).isEqualTo("example.com");
        assertThat(RequestTarget.hostOf(null)).isNull();
    }

    @Test
    void theOriginFormPathIsNormalisedAndTheQueryKeptAsSent() {
        RequestTarget t = RequestTarget.of("/u/../admin/%7Eops?next=/u/../x&v=%7E", "h");
        assertThat(t.path()).isEqualTo("/admin/~ops");
        assertThat(t.pathAndQuery()).isEqualTo("/admin/~ops?next=/u/../x&v=%7E");
        assertThat(RequestTarget.of("/u/%2e%2e/admin", "h").pathAndQuery()).isEqualTo("/admin");
    }

    @Test
    void theAbsoluteFormPathIsNormalisedToo() {
        RequestTarget t = RequestTarget.of("http://tickets.internal/api/./v1/../tickets?q=./..", null);
        assertThat(t.host()).isEqualTo("tickets.internal");
        assertThat(t.path()).isEqualTo("/api/tickets");
        assertThat(t.pathAndQuery()).isEqualTo("/api/tickets?q=./..");
        assertThat(RequestTarget.of("http://h/../../x", null).pathAndQuery()).isEqualTo("/x");
    }

    @Test
    void aNormalTargetIsKeptAsTheSameString() {
        String uri = "/api/tickets/a%20b";
        RequestTarget t = RequestTarget.of(uri, "h");
        assertThat(t.path()).isSameAs(uri);
        assertThat(t.pathAndQuery()).isSameAs(uri);
        String withQuery = "/api/tickets?id=%zz";
        assertThat(RequestTarget.of(withQuery, "h").pathAndQuery()).isSameAs(withQuery);
    }

    @Test
    void aMalformedEscapeInThePathMakesTheTargetUnusable() {
        assertThat(RequestTarget.of("/a/%zz", "h")).isNull();
        assertThat(RequestTarget.of("http://h/a%4", null)).isNull();
        assertThat(RequestTarget.whyUnusable("/a/%zz")).startsWith("malformed percent-encoding in the request path");
        assertThat(RequestTarget.whyUnusable("http://h/a%4?x")).startsWith("malformed percent-encoding in the request path");
        assertThat(RequestTarget.whyUnusable("ftp://h/%zz")).startsWith("unusable request target");
        assertThat(RequestTarget.whyUnusable("http:///x")).startsWith("unusable request target");    }

    @Test
    void aFragmentMakesTheTargetUnusable() {
        assertThat(RequestTarget.of("/a#/../admin", "h")).isNull();
        assertThat(RequestTarget.of("/a?q=1#x", "h")).isNull();
        assertThat(RequestTarget.of("http://h/a#x", null)).isNull();
        assertThat(RequestTarget.whyUnusable("/a#/../admin")).isEqualTo("a fragment ('#') in the request target (expected: none)");
    }

    @Test
    void otherSchemesAreUnusable() {
        assertThat(RequestTarget.of("ftp://h/x", null)).isNull();
        assertThat(RequestTarget.of("x", null)).isNull();
        assertThat(RequestTarget.of("http:///x", null)).isNull();
    }
}
