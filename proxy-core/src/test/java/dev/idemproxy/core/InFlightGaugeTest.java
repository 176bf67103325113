package dev.idemproxy.core;

import dev.idemproxy.core.pipeline.ServerPolicy;

import static dev.idemproxy.core.testing.UpstreamAction.after;
import static dev.idemproxy.core.testing.UpstreamAction.hang;
import static dev.idemproxy.core.testing.UpstreamAction.resetAfterRequest;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.dlq.DeadLetterPolicy;
import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.idempotency.KeyPolicy;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.route.IdsPolicy;
import dev.idemproxy.core.retry.RetryBudgetPolicy;
import dev.idemproxy.core.retry.RetryPolicy;
import dev.idemproxy.core.retry.TaskPolicy;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import dev.idemproxy.core.route.Timeouts;
import dev.idemproxy.core.store.StorePolicy;
import dev.idemproxy.core.store.memory.MemoryStore;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RawHttp;
import dev.idemproxy.core.testing.TestUpstream;
import dev.idemproxy.core.route.PoolPolicy;
import dev.idemproxy.core.route.TlsPolicy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code idemproxy_in_flight{route}} on a real proxy and upstream: a call counts from the moment
 * it is routed until it ends, however it ends (answered, replayed, refused, its client gone), and
 * exactly once. One io thread, so two round trips on another connection prove the proxy has seen
 * a client's close (as in {@link ClientGoneBeforeClaimTest}).
 */
@ExtendWith(LeakDetection.class)
class InFlightGaugeTest {
    static final String PASS = "pass";
    static final String PROTECTED = "protected";

    TestUpstream upstream;
    Stores store;
    SimpleMeterRegistry registry;
    ProxyServer proxy;

    @BeforeEach
    void start() throws Exception {
        upstream = TestUpstream.start();
        store = MemoryStore.create(1000, Clock.systemUTC());
        registry = new SimpleMeterRegistry();
        IdempotencyPolicy idem = new IdempotencyPolicy(true, Set.of("POST"), KeyPolicy.DEFAULT, List.of(), List.of(),
                Duration.ofHours(1), Duration.ofSeconds(30), IdempotencyPolicy.OnConcurrent.WAIT, Duration.ofSeconds(20),
                64, 1024 * 1024);
        Route pass = Route.passThrough(PASS, new RouteMatch(null, "/pass", Set.of()), upstream.uri());
        Route prot = new Route(PROTECTED, new RouteMatch(null, "/protected", Set.of()), upstream.uri(), Set.of(), Timeouts.DEFAULT,
                idem, RetryPolicy.DEFAULT, IdsPolicy.DEFAULT, null, DeadLetterPolicy.DEFAULT, TlsPolicy.DEFAULT, PoolPolicy.DEFAULT);
        ServerPolicy oneLoop = new ServerPolicy(1, 16 * 1024, 8 * 1024);
        proxy = new ProxyServer(new ProxyConfig(new HostPort("127.0.0.1", 0), Duration.ofSeconds(1), AdminPolicy.DEFAULT, oneLoop,
                StorePolicy.DEFAULT, TaskPolicy.DEFAULT, RetryBudgetPolicy.DEFAULT, List.of(), List.of(pass, prot)), store, registry);
        proxy.start();
    }

    @AfterEach
    void stop() throws Exception {
        proxy.stop(Duration.ofSeconds(1));
        store.close();
        upstream.close();
    }

    @Test
    void everyRouteStartsAtZero() {
        assertThat(inFlight(PASS)).isZero();
        assertThat(inFlight(PROTECTED)).isZero();
    }

    @Test
    void aHeldPassThroughCallCountsOneUntilItsResponseHasGone() throws Exception {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        upstream.enqueue(after(gate, respond(200, "late")));
        try (RawHttp client = connect()) {
            client.write("GET /pass/x HTTP/1.1\r\nHost: t\r\n\r\n");
            upstream.awaitRequests(1, Duration.ofSeconds(10));
            assertThat(inFlight(PASS)).isEqualTo(1);
            assertThat(inFlight(PROTECTED)).isZero();

            gate.complete(null);
            assertThat(client.readResponse().bodyAsString()).isEqualTo("late");
            awaitInFlight(PASS, 0);
        }
    }

    @Test
    void aPassThroughCallWhoseClientLeavesIsUncounted() throws Exception {
        upstream.enqueue(hang());
        try (RawHttp client = connect()) {
            client.write("GET /pass/hangs HTTP/1.1\r\nHost: t\r\n\r\n");
            upstream.awaitRequests(1, Duration.ofSeconds(10));
            assertThat(inFlight(PASS)).isEqualTo(1);
        }
        awaitInFlight(PASS, 0);
    }

    @Test
    void aForwardedProtectedCallOutlivesItsClientAndIsUncountedWhenItSettles() throws Exception {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        upstream.enqueue(after(gate, respond(201, "created")));
        try (RawHttp client = connect()) {
            client.write(post("k-outlives", "{}"));
            upstream.awaitRequests(1, Duration.ofSeconds(10));
            assertThat(inFlight(PROTECTED)).isEqualTo(1);
        }
        twoRoundTrips();
        assertThat(inFlight(PROTECTED)).as("still running upstream after its client left").isEqualTo(1);

        gate.complete(null);
        awaitInFlight(PROTECTED, 0);
        assertThat(upstream.requestCount()).isEqualTo(1);
    }

    @Test
    void callsTheProxyAnswersItselfAreCountedAndUncountedOnce() throws Exception {
        upstream.enqueue(respond(201, "created"));
        try (RawHttp client = connect()) {
            client.write(post("k-once", "{}"));
            assertThat(client.readResponse().status()).isEqualTo(201);
            client.write(post("k-once", "{}"));                                   // replayed
            assertThat(client.readResponse().header("Idempotent-Replayed")).isEqualTo("true");
            client.write(post("k-once", "{\"other\":1}"));                        // 422: another payload
            assertThat(client.readResponse().status()).isEqualTo(422);
            client.write("GET /nowhere HTTP/1.1\r\nHost: t\r\n\r\n");             // 404: never routed, never counted
            assertThat(client.readResponse().status()).isEqualTo(404);
        }
        try (RawHttp client = connect()) {
            client.write(post("k-big", "x".repeat(65)));                         // 413: over maxRequestBody
            assertThat(client.readResponse().status()).isEqualTo(413);
        }
        awaitInFlight(PROTECTED, 0);
        twoRoundTrips();
        assertThat(inFlight(PROTECTED)).isZero();
        assertThat(inFlight(PASS)).isZero();
        assertThat(upstream.requestCount()).isEqualTo(1);
    }

    @Test
    void callsWhoseUpstreamFailsAreUncountedWithTheirProblem() throws Exception {
        upstream.enqueue(resetAfterRequest(), resetAfterRequest());
        try (RawHttp client = connect()) {
            client.write("GET /pass/reset HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.readResponse().status()).isEqualTo(502);
        }
        try (RawHttp client = connect()) {
            client.write(post("k-reset", "{}"));
            assertThat(client.readResponse().status()).isBetween(502, 504);
        }
        awaitInFlight(PASS, 0);
        awaitInFlight(PROTECTED, 0);
        assertThat(upstream.requestCount()).isEqualTo(2);
    }

    @Test
    void aDuplicateWaitingForTheFirstCallCountsUntilItsClientLeaves() throws Exception {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        upstream.enqueue(after(gate, respond(201, "created")));
        try (RawHttp first = connect()) {
            first.write(post("k-wait", "{}"));
            upstream.awaitRequests(1, Duration.ofSeconds(10));
            try (RawHttp waiter = connect()) {
                waiter.write(post("k-wait", "{}"));
                awaitInFlight(PROTECTED, 2);
            }
            awaitInFlight(PROTECTED, 1);

            gate.complete(null);
            assertThat(first.readResponse().status()).isEqualTo(201);
        }
        awaitInFlight(PROTECTED, 0);
    }

    private RawHttp connect() throws Exception {
        return RawHttp.connect("127.0.0.1", proxy.address().getPort());
    }

    private static String post(String key, String body) {
        return "POST /protected HTTP/1.1\r\nHost: t\r\nIdempotency-Key: " + key + "\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body.getBytes(UTF_8).length + "\r\n\r\n" + body;
    }

    /** Two round trips on the (only) event loop: by the second, the proxy has seen every earlier close. */
    private void twoRoundTrips() throws Exception {
        try (RawHttp other = connect()) {
            for (int i = 0; i < 2; i++) {
                other.write("GET /elsewhere HTTP/1.1\r\nHost: t\r\n\r\n");
                assertThat(other.readResponse().status()).isEqualTo(404);
            }
        }
    }

    private double inFlight(String route) {
        return registry.get(ProxyMetrics.IN_FLIGHT).tag("route", route).gauge().value();
    }

    /** Polls the gauge until it reads {@code expected}; the response's end may reach the client a moment before. */
    private void awaitInFlight(String route, double expected) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (inFlight(route) != expected && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        assertThat(inFlight(route)).as("in flight on %s", route).isEqualTo(expected);
    }
}
