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
    void otherSchemesAreUnusable() {
        assertThat(RequestTarget.of("ftp://h/x", null)).isNull();
        assertThat(RequestTarget.of("x", null)).isNull();
        assertThat(RequestTarget.of("http:///x", null)).isNull();
    }
}
