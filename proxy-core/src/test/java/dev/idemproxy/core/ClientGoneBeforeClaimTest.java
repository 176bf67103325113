package dev.idemproxy.core;

import dev.idemproxy.core.testing.Await;

import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.dlq.DeadLetterPolicy;
import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.route.IdsPolicy;
import dev.idemproxy.core.retry.RetryPolicy;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import dev.idemproxy.core.route.Timeouts;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.ForwardingRecordStore;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.memory.MemoryStore;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.OneLoopProxy;
import dev.idemproxy.core.testing.RawHttp;
import dev.idemproxy.core.testing.TestUpstream;
import dev.idemproxy.core.route.PoolPolicy;
import dev.idemproxy.core.route.TlsPolicy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Found by {@code idemproxy demo}: an agent that timed out while its call's claim was still on
 * the way to the store left the key claimed by a call that was never forwarded, so each of its
 * retries waited {@code waitTimeout}, got 409, and the intent was never executed until the
 * lease lapsed.
 */
@ExtendWith(LeakDetection.class)
class ClientGoneBeforeClaimTest {
    static final String KEY = "k-client-gone";
    static final String BODY = "{\"title\":\"printer\"}";

    TestUpstream upstream;
    GatedStore store;
    /** The memory stores behind {@link #store}. */
    Stores memory;
    ProxyServer proxy;

    @BeforeEach
    void start() throws Exception {
        upstream = TestUpstream.start();
        memory = MemoryStore.create(1000, Clock.systemUTC());
        store = new GatedStore(memory.records());
        IdempotencyPolicy idem = OneLoopProxy.protectPosts(Duration.ofHours(1));
        Route route = new Route("tickets", new RouteMatch(null, "/tickets", Set.of()), upstream.uri(), Set.of(), Timeouts.DEFAULT,
                idem, RetryPolicy.DEFAULT, IdsPolicy.DEFAULT, null, DeadLetterPolicy.DEFAULT, TlsPolicy.DEFAULT, PoolPolicy.DEFAULT);
        // One io thread: every client connection shares one event loop, which orders the steps below.
        proxy = OneLoopProxy.start(route, memory.withRecords(store));
    }

    @AfterEach
    void stop() throws Exception {
        proxy.stop(Duration.ofSeconds(1));
        store.close();
        upstream.close();
    }

    @Test
    void aClientThatLeavesBeforeItsClaimIsAnsweredDoesNotKeepTheKeyClaimed() throws Exception {
        upstream.enqueue(respond(201, "created"));
        int port = proxy.address().getPort();
        try (RawHttp gone = RawHttp.connect("127.0.0.1", port)) {
            gone.write("POST /tickets HTTP/1.1\r\nHost: t\r\nIdempotency-Key: " + KEY + "\r\nContent-Length: " + BODY.length()
                    + "\r\n\r\n" + BODY);
            assertThat(store.claimAsked.await(10, TimeUnit.SECONDS)).isTrue();
        }
        // Two round trips on the same (only) event loop: by the second, the proxy has seen the first client go.
        try (RawHttp other = RawHttp.connect("127.0.0.1", port)) {
            for (int i = 0; i < 2; i++) {
                other.write("GET /elsewhere HTTP/1.1\r\nHost: t\r\n\r\n");
                assertThat(other.readResponse().status()).isEqualTo(404);
            }
        }
        store.gate.complete(null);

        HttpResponse<String> retry = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/tickets")).header("Idempotency-Key", KEY)
                        .POST(HttpRequest.BodyPublishers.ofString(BODY)).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(retry.statusCode()).as(retry.body()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo("created");
        assertThat(upstream.requestCount()).isEqualTo(1);

        // The abandoned call's receipt, written PROCESSING with its claim, says what became of it.
        Receipt r = Await.value("the abandoned call's FAILED receipt", java.time.Duration.ofSeconds(10),
                () -> memory.receipts().receipt(store.firstCallId).toCompletableFuture().get(5, TimeUnit.SECONDS).orElse(null),
                got -> got != null && got.status().equals("FAILED"));
        assertThat(r.status()).isEqualTo("FAILED");
        assertThat(r.reason()).isEqualTo("client_gone");
        assertThat(r.attempts()).isZero();
    }

    /** The memory store, whose first claim is answered only when {@link #gate} completes. */
    static final class GatedStore extends ForwardingRecordStore {
        final CompletableFuture<Void> gate = new CompletableFuture<>();
        final CountDownLatch claimAsked = new CountDownLatch(1);
        volatile String firstCallId;

        private final RecordStore delegate;

        GatedStore(RecordStore delegate) {
            this.delegate = delegate;
        }

        @Override
        protected RecordStore delegate() {
            return delegate;
        }

        @Override
        public CompletionStage<ClaimResult> claim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
            if (claimAsked.getCount() == 0) {
                return delegate.claim(key, fingerprint, owner, lease, ctx);
            }
            CompletionStage<ClaimResult> result = delegate.claim(key, fingerprint, owner, lease, ctx);
            firstCallId = ctx.callId();
            claimAsked.countDown();
            return gate.thenCompose(x -> result);
        }
    }
}
