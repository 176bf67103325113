package dev.idemproxy.core.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.forward.ForwardProxyPolicy.ConnectMode;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import dev.idemproxy.core.route.RouteTable;
import java.net.URI;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ConnectResultTest {
    static Route route(String name, String host, boolean intercept) {
        Route plain = Route.passThrough(name, new RouteMatch(host, "", Set.of()), null);
        return new Route(plain.name(), plain.match(), null, plain.tags(), plain.timeouts(), plain.idempotency(), plain.retry(),
                plain.ids(), null, plain.deadLetter(), plain.tls(), plain.pool(), plain.log(), intercept);
    }

    final RouteTable routes = RouteTable.of(List.of(
            route("stripe", "api.stripe.com", true),
            route("github", "api.github.com", false),
            Route.passThrough("catch-all", RouteMatch.ANY, URI.create("http://127.0.0.1:1"))));

    @Test
    void aHostThatAnInterceptingRouteNamesIsInterceptedOnAnyPort() {
        assertThat(ConnectResult.decide(routes, ConnectTarget.parse("api.stripe.com:443"), ConnectMode.REFUSE))
                .isEqualTo(ConnectResult.INTERCEPTED);
        assertThat(ConnectResult.decide(routes, ConnectTarget.parse("API.STRIPE.COM:8443"), ConnectMode.TUNNEL))
                .isEqualTo(ConnectResult.INTERCEPTED);
    }

    @Test
    void anyOtherHostIsTunnelledOrRefusedAsConfigured() {
        for (String other : List.of("api.github.com:443", "stripe.com:443", "api.stripe.com.evil.example:443")) {
            ConnectTarget t = ConnectTarget.parse(other);
            assertThat(ConnectResult.decide(routes, t, ConnectMode.TUNNEL)).as(other).isEqualTo(ConnectResult.TUNNELLED);
            assertThat(ConnectResult.decide(routes, t, ConnectMode.REFUSE)).as(other).isEqualTo(ConnectResult.REFUSED);
        }
    }

    @Test
    void theMetricSpellingsAreTheContracts() {
        assertThat(ConnectResult.SPELLINGS).containsExactly("intercepted", "tunnelled", "refused");
    }
}
