package dev.idemproxy.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.idempotency.RequestPart;
import dev.idemproxy.core.idempotency.Scope;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

class NettyRequestViewTest {
    private static final Route ROUTE = Route.passThrough("r", RouteMatch.ANY, URI.create("http://127.0.0.1:1"));

    private static NettyRequestView view(String... authorizationLines) {
        HttpRequest req = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/t");
        req.headers().add("X-Other", "x");
        for (String line : authorizationLines) {
            req.headers().add(line.length() % 2 == 0 ? "authorization" : "Authorization", line);
        }
        return new NettyRequestView(new ProxyCall(req, ROUTE, "h", "/t", 0));
    }

    @Test
    void headerValuesAreEveryLineInTheOrderSent() {
        // Netty's value iterator runs newest first; the view must not hand that order on.
        assertThat(view("one", "two", "three").headerValues("Authorization")).containsExactly("one", "two", "three");
        assertThat(view("only").headerValues("AUTHORIZATION")).containsExactly("only");
        assertThat(view().headerValues("Authorization")).isEmpty();
        assertThat(view("one", "two").header("Authorization")).isEqualTo("one");
        assertThat(view("one", "two").headerLines("Authorization")).isEqualTo(2);
    }

    @Test
    void aSecondLineChangesTheScopeOfARealRequest() {
        List<RequestPart> auth = List.of(RequestPart.parse("header:Authorization"));
        assertThat(Scope.of(auth, view("Bearer alice", "Bearer bob")))
                .isNotEqualTo(Scope.of(auth, view("Bearer alice")))
                .isNotEqualTo(Scope.of(auth, view("Bearer bob", "Bearer alice")))
                .isEqualTo(Scope.of(auth, view("Bearer alice", "Bearer bob")));
    }
}
