package dev.idemproxy.core.route;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RouteTableTest {
    static Route route(String name, String host, String prefix, Set<String> methods) {
        return Route.passThrough(name, new RouteMatch(host, prefix, methods), URI.create("http://127.0.0.1:1"));
    }

    final RouteTable table = RouteTable.of(List.of(
            route("tickets-post", "tickets.internal", "/api/tickets", Set.of("POST")),
            route("tickets-any", "tickets.internal", "/api", Set.of()),
            route("fallback", null, "/", Set.of())));

    @Test
    void firstMatchWinsInOrder() {
        assertThat(table.match("tickets.internal", "/api/tickets/1", "POST")).get().extracting(Route::name).isEqualTo("tickets-post");
        assertThat(table.match("tickets.internal", "/api/tickets/1", "GET")).get().extracting(Route::name).isEqualTo("tickets-any");
    }

    @Test
    void everyNamedCriterionMustHold() {
        assertThat(table.match("other.host", "/api/tickets", "POST")).get().extracting(Route::name).isEqualTo("fallback");
        assertThat(RouteTable.of(List.of(route("a", "h", "/x", Set.of("GET")))).match("h", "/y", "GET")).isEmpty();
        assertThat(RouteTable.of(List.of(route("a", "h", "/x", Set.of("GET")))).match(null, "/x", "GET")).isEmpty();
    }

    @Test
    void hostIsMatchedCaseInsensitively() {
        RouteTable t = RouteTable.of(List.of(route("a", "Tickets.Internal", "", Set.of())));
        assertThat(t.match("tickets.internal", "/", "GET")).isPresent();
    }

    @Test
    void emptyTableMatchesNothing() {
        assertThat(RouteTable.empty().match("h", "/", "GET")).isEmpty();
    }

    @Test
    void upstreamBasePathIsPrefixedWithoutTrailingSlash() {
        Route r = Route.passThrough("r", RouteMatch.ANY, URI.create("https://svc.example:8443/v1/"));
        assertThat(r.upstreamBasePath()).isEqualTo("/v1");
        assertThat(r.upstreamPort()).isEqualTo(8443);
        assertThat(r.isTls()).isTrue();
        assertThat(Route.passThrough("s", RouteMatch.ANY, URI.create("http://svc")).upstreamPort()).isEqualTo(80);
    }

    @Test
    void aRequestAddressedToATargetMatchesOnlyRoutesThatNameAHost() {
        assertThat(table.matchHostNamed("tickets.internal", "/api/x", "GET")).get().extracting(Route::name).isEqualTo("tickets-any");
        assertThat(table.matchHostNamed("other.host", "/api/tickets", "POST")).as("never the host-less fallback").isEmpty();
        assertThat(table.matchHostNamed(null, "/", "GET")).isEmpty();
    }

    @Test
    void onlyAnInterceptingRouteMakesItsHostIntercepted() {
        Route stripe = Route.passThrough("stripe", new RouteMatch("api.stripe.com", "/v1/", Set.of()), null);
        Route intercepting = new Route(stripe.name(), stripe.match(), null, stripe.tags(), stripe.timeouts(), stripe.idempotency(),
                stripe.retry(), stripe.ids(), null, stripe.deadLetter(), stripe.tls(), stripe.pool(), stripe.log(), true);
        assertThat(RouteTable.of(List.of(stripe)).intercepts("api.stripe.com")).isFalse();
        assertThat(RouteTable.of(List.of(table.routes().get(2), intercepting)).intercepts("api.stripe.com")).isTrue();
        assertThat(RouteTable.of(List.of(intercepting)).intercepts("stripe.com")).isFalse();
    }

    @Test
    void aRouteWithoutUpstreamMustNameAHostThatCanBeConnectedTo() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Route.passThrough("x", RouteMatch.ANY, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("has no upstream and no match.host");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> Route.passThrough("x", new RouteMatch("under_score.example", "", Set.of()), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot be connected to");
    }
}
