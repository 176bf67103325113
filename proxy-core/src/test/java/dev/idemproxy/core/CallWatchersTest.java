package dev.idemproxy.core;

import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.call.CallIdentity;
import dev.idemproxy.core.call.CallSettlement;
import dev.idemproxy.core.call.CallWatch;
import dev.idemproxy.core.call.CallWatchers;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.dlq.DeadLetterPolicy;
import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.BackoffPolicy;
import dev.idemproxy.core.retry.Jitter;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.retry.RetryPolicy;
import dev.idemproxy.core.route.IdsPolicy;
import dev.idemproxy.core.route.PoolPolicy;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import dev.idemproxy.core.route.Timeouts;
import dev.idemproxy.core.route.TlsPolicy;
import dev.idemproxy.core.testing.Await;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RecordedRequest;
import dev.idemproxy.core.testing.TestUpstream;
import io.netty.handler.codec.http.HttpHeaders;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a watcher set on the server ({@link ProxyServer#watchers}) hears: a protected call's tries,
 * decisions and end in order (beside the call's own watch, which keeps the tries its settlement
 * carries), a header it adds to a try's request reaching the upstream; and, when
 * it asks to, a pass-through call's upstream request and end.
 */
@ExtendWith(LeakDetection.class)
class CallWatchersTest {
    static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    final List<String> heard = new CopyOnWriteArrayList<>();
    TestUpstream upstream;
    ProxyServer proxy;

    /** Writes down what each call tells; adds {@code X-Watched} to every request going upstream. */
    final class Recording implements CallWatchers {
        @Override
        public CallWatch watch(ProxyCall call, CallIdentity identity) {
            heard.add("watch " + call.request().method() + " " + call.pathAndQuery());
            return new CallWatch() {
                @Override
                public void tryStarted(int n, long nanos) {
                    heard.add("tryStarted " + n);
                }

                @Override
                public void upstreamRequest(int n, HttpHeaders headers) {
                    headers.set("X-Watched", "try-" + n);
                }

                @Override
                public void tryEnded(int n, AttemptOutcome outcome, long nanos) {
                    heard.add("tryEnded " + n + " " + outcome);
                }

                @Override
                public void decided(int n, RetryDecision decision) {
                    heard.add("decided " + n + " " + decision.action());
                }

                @Override
                public void settled(CallSettlement settlement) {
                    heard.add("settled " + settlement.finalStatus() + ", tries kept " + settlement.tries().total());
                }
            };
        }

        @Override
        public CallWatch passThrough(ProxyCall call) {
            heard.add("passThrough " + call.request().method() + " " + call.pathAndQuery());
            return new CallWatch() {
                @Override
                public void upstreamRequest(int n, HttpHeaders headers) {
                    headers.set("X-Watched", "pass-" + n);
                }

                @Override
                public void passed(int status, boolean failed) {
                    heard.add("passed " + status + " " + failed);
                }
            };
        }
    }

    @BeforeEach
    void start() throws Exception {
        upstream = TestUpstream.start();
        Route retried = new Route("retried", new RouteMatch(null, "/retried", Set.of()), upstream.uri(), Set.of(Route.TAG_IDEMPOTENT),
                Timeouts.DEFAULT, IdempotencyPolicy.DISABLED, new RetryPolicy(2, RetryPolicy.DEFAULT_RETRY_ON,
                        new BackoffPolicy(Duration.ofMillis(1), Duration.ofMillis(1), 1.0, Jitter.parse("none")), Duration.ofSeconds(1)),
                IdsPolicy.DEFAULT, null, DeadLetterPolicy.DEFAULT, TlsPolicy.DEFAULT, PoolPolicy.DEFAULT);
        Route passed = Route.passThrough("passed", new RouteMatch(null, "/passed", Set.of()), upstream.uri());
        Route dead = Route.passThrough("dead", new RouteMatch(null, "/dead", Set.of()), URI.create("http://127.0.0.1:1"));
        ProxyConfig config = ProxyConfig.empty().withListen(new HostPort("127.0.0.1", 0), AdminPolicy.DEFAULT)
                .withRoutes(List.of(retried, passed, dead));
        proxy = new ProxyServer(config);
        proxy.watchers(new Recording());
        proxy.start();
    }

    @AfterEach
    void stop() throws Exception {
        proxy.stop(Duration.ofSeconds(1));
        upstream.close();
    }

    @Test
    void aProtectedCallTellsItsTriesAndEndInOrderAndItsWatchAddsToEachTrysRequest() throws Exception {
        upstream.enqueue(respond(503, "busy"), respond(200, "done"));

        HttpResponse<String> r = send(HttpRequest.newBuilder(uri("/retried/a")).POST(HttpRequest.BodyPublishers.ofString("{}")));

        assertThat(r.statusCode()).isEqualTo(200);
        Await.until("the call settled", () -> heard.contains("settled 200, tries kept 2"));
        assertThat(heard).containsExactly("watch POST /retried/a", "tryStarted 1", "tryEnded 1 503", "decided 1 RETRY",
                "tryStarted 2", "tryEnded 2 200", "decided 2 STOP", "settled 200, tries kept 2");
        List<RecordedRequest> seen = upstream.awaitRequests(2, Duration.ofSeconds(5));
        assertThat(seen).extracting(s -> s.header("X-Watched")).containsExactly("try-1", "try-2");
    }

    @Test
    void aPassThroughCallIsWatchedWhenTheWatchersAskAndItsWatchAddsToItsRequest() throws Exception {
        upstream.enqueue(respond(200, "passed"));

        HttpResponse<String> r = send(HttpRequest.newBuilder(uri("/passed/b?q=1")).GET());

        assertThat(r.body()).isEqualTo("passed");
        Await.until("the call ended", () -> heard.contains("passed 200 false"));
        assertThat(heard).containsExactly("passThrough GET /passed/b?q=1", "passed 200 false");
        assertThat(upstream.awaitRequests(1, Duration.ofSeconds(5)).get(0).header("X-Watched")).isEqualTo("pass-1");
    }

    @Test
    void aPassThroughCallThatCannotReachItsUpstreamEndsFailedWithTheProxysStatus() throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(uri("/dead/c")).GET());

        assertThat(r.statusCode()).isEqualTo(502);
        Await.until("the call ended", () -> heard.contains("passed 502 true"));
        assertThat(heard).containsExactly("passThrough GET /dead/c", "passed 502 true");
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + proxy.address().getPort() + path);
    }

    private static HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
        return CLIENT.send(b.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
