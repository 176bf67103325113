package dev.idemproxy.core.route;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TargetBinderTest {
    final TargetBinder binder = new TargetBinder();
    final Route stripe = Route.passThrough("stripe", new RouteMatch("api.stripe.com", "/v1/", Set.of()), null);

    @Test
    void aRouteWithUpstreamIsLeftAlone() {
        Route r = Route.passThrough("r", RouteMatch.ANY, URI.create("http://127.0.0.1:1"));
        assertThat(binder.bind(r, true, 443)).isSameAs(r);
    }

    @Test
    void aRouteWithoutUpstreamGoesToItsHostOnTheAskedPort() {
        Route bound = binder.bind(stripe, true, 443);
        assertThat(bound.upstream()).isEqualTo(URI.create("https://api.stripe.com"));
        assertThat(bound.upstreamAuthority()).isEqualTo("api.stripe.com");
        assertThat(bound.upstreamPort()).isEqualTo(443);
        assertThat(bound.name()).isEqualTo("stripe");
        assertThat(bound.match()).isSameAs(stripe.match());

        assertThat(binder.bind(stripe, true, 8443).upstream()).isEqualTo(URI.create("https://api.stripe.com:8443"));
        assertThat(binder.bind(stripe, false, 80).upstream()).isEqualTo(URI.create("http://api.stripe.com"));
        assertThat(binder.bind(stripe, false, 443).upstream()).isEqualTo(URI.create("http://api.stripe.com:443"));
    }

    @Test
    void theSameTargetAgainGetsTheSameBoundRoute() {
        Route first = binder.bind(stripe, true, 443);
        assertThat(binder.bind(stripe, true, 443)).isSameAs(first);
        assertThat(binder.bind(stripe, true, 444)).isNotSameAs(first);
    }

    @Test
    void theAuthoritysPortIsReadOrNoneWhenItNamesNone() {
        assertThat(TargetBinder.portOf("a.example:8080")).isEqualTo(8080);
        assertThat(TargetBinder.portOf("[::1]:8443")).isEqualTo(8443);
        assertThat(TargetBinder.portOf("[::1]")).isEqualTo(-1);
        assertThat(TargetBinder.portOf("a.example")).isEqualTo(-1);
        assertThat(TargetBinder.portOf("a.example:")).isEqualTo(-1);
        assertThat(TargetBinder.portOf("a.example:0")).isEqualTo(-1);
        assertThat(TargetBinder.portOf("a.example:65536")).isEqualTo(-1);
        assertThat(TargetBinder.portOf("a.example:99999999999")).isEqualTo(-1);
        assertThat(TargetBinder.portOf("a.example:8x")).isEqualTo(-1);
        assertThat(TargetBinder.portOf(null)).isEqualTo(-1);
    }
}
