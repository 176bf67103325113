package dev.idemproxy.core;

import static dev.idemproxy.core.testing.UpstreamAction.hang;
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
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.ForwardingRecordStore;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.store.memory.MemoryStore;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.OneLoopProxy;
import dev.idemproxy.core.testing.RawHttp;
import dev.idemproxy.core.testing.TestUpstream;
import dev.idemproxy.core.route.PoolPolicy;
import dev.idemproxy.core.route.TlsPolicy;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Found by the chaos suite (kill -9 of a proxy on Redis, 2 000 intents): an agent was answered
 * {@code 504 ambiguous-outcome} (read timeout, the call may have executed), the proxy died before
 * that outcome reached the store, its abandoned claim vanished two leases later, and the
 * agent's next duplicate ran the call again: a second side effect. Two rules prevent it: a
 * proxy-made answer goes to the client only once its record is written, and a claim stays (as a
 * takeover, never a fresh call) as long as its outcome would have.
 */
@ExtendWith(LeakDetection.class)
class AnswerAfterRecordTest {
    static final String KEY = "k-answer-after-record";
    static final String BODY = "{\"title\":\"printer\"}";
    static final Duration TTL = Duration.ofHours(1);

    TestUpstream upstream;
    SlowCompleteStore store;
    /** The memory stores behind {@link #store}. */
    Stores memory;
    ProxyServer proxy;

    @BeforeEach
    void start() throws Exception {
        upstream = TestUpstream.start();
        memory = MemoryStore.create(1000, Clock.systemUTC());
        store = new SlowCompleteStore(memory.records());
        IdempotencyPolicy idem = OneLoopProxy.protectPosts(TTL);
        // No retries, a short perTry: the hanging upstream ends the call as an unknown outcome (504).
        Timeouts timeouts = new Timeouts(Duration.ofSeconds(2), Duration.ofMillis(200), Duration.ofSeconds(60), Duration.ofSeconds(10));
        Route route = new Route("tickets", new RouteMatch(null, "/tickets", Set.of()), upstream.uri(), Set.of(), timeouts,
                idem, RetryPolicy.DEFAULT, IdsPolicy.DEFAULT, null, DeadLetterPolicy.DEFAULT, TlsPolicy.DEFAULT, PoolPolicy.DEFAULT);
        proxy = OneLoopProxy.start(route, memory.withRecords(store));
    }

    @AfterEach
    void stop() throws Exception {
        store.gate.complete(null);
        proxy.stop(Duration.ofSeconds(1));
        store.close();
        upstream.close();
    }

    @Test
    void aProxyMadeAnswerGoesOutOnlyOnceItsRecordIsWritten() throws Exception {
        upstream.enqueue(hang());
        RawHttp.Response r = answerWithItsRecordWriteHeld();
        assertThat(r.status()).isEqualTo(504);
        assertThat(r.bodyAsString()).contains("ambiguous-outcome");
        assertRecordedAsCompleted(504);
    }

    /**
     * The same for the upstream's own answer: it reaches the client as it comes, except its end,
     * which waits for the record, so a client that has the whole response can count on a
     * duplicate (after a crash too) getting the same one, never the call's execution again.
     */
    @Test
    void aForwardedResponseEndsOnlyOnceItsRecordIsWritten() throws Exception {
        upstream.enqueue(respond(201, "made"));
        RawHttp.Response r = answerWithItsRecordWriteHeld();
        assertThat(r.status()).isEqualTo(201);
        assertThat(r.bodyAsString()).isEqualTo("made");
        assertRecordedAsCompleted(201);
    }

    /**
     * Sends the protected POST, holds the store's write of its record and checks that no byte of
     * the answer's end reaches the client meanwhile (a wait for an absence), then lets the write
     * finish and returns the answer.
     */
    private RawHttp.Response answerWithItsRecordWriteHeld() throws Exception {
        try (RawHttp client = RawHttp.connect("127.0.0.1", proxy.address().getPort())) {
            client.write("POST /tickets HTTP/1.1\r\nHost: t\r\nIdempotency-Key: " + KEY + "\r\nContent-Length: " + BODY.length()
                    + "\r\n\r\n" + BODY);
            assertThat(store.completeAsked.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(client.awaitData(Duration.ofMillis(500))).as("answered before the record was written").isFalse();
            store.gate.complete(null);
            return client.readResponse();
        }
    }

    /** Asserts that the store now holds the record of the test's one claim, completed with {@code status}. */
    private void assertRecordedAsCompleted(int status) throws Exception {
        IdempotencyRecord record = store.get(store.claimed.get(0)).toCompletableFuture().get(5, TimeUnit.SECONDS).orElseThrow();
        assertThat(record.state()).isEqualTo(IdempotencyRecord.State.COMPLETED);
        assertThat(record.status()).isEqualTo(status);
    }

    @Test
    void aClaimIsKeptAsLongAsItsOutcomeWouldBe() throws Exception {
        upstream.enqueue(hang());
        store.gate.complete(null);
        try (RawHttp client = RawHttp.connect("127.0.0.1", proxy.address().getPort())) {
            client.write("POST /tickets HTTP/1.1\r\nHost: t\r\nIdempotency-Key: " + KEY + "\r\nContent-Length: " + BODY.length()
                    + "\r\n\r\n" + BODY);
            assertThat(client.readResponse().status()).isEqualTo(504);
        }
        assertThat(store.contexts).hasSize(1);
        assertThat(store.contexts.get(0).retention()).isEqualTo(TTL);
    }

    /** The memory store, whose first {@code complete} is answered only when {@link #gate} completes; it notes every claim. */
    static final class SlowCompleteStore extends ForwardingRecordStore {
        final CompletableFuture<Void> gate = new CompletableFuture<>();
        final CountDownLatch completeAsked = new CountDownLatch(1);
        final List<RecordKey> claimed = new CopyOnWriteArrayList<>();
        final List<ClaimContext> contexts = new CopyOnWriteArrayList<>();

        private final RecordStore delegate;

        SlowCompleteStore(RecordStore delegate) {
            this.delegate = delegate;
        }

        @Override
        protected RecordStore delegate() {
            return delegate;
        }

        @Override
        public CompletionStage<ClaimResult> claim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
            claimed.add(key);
            contexts.add(ctx);
            return delegate.claim(key, fingerprint, owner, lease, ctx);
        }

        @Override
        public CompletionStage<Boolean> complete(RecordKey key, OwnedClaim owner, StoredResponse response, int attempts, Duration ttl,
                ReceiptPut receipt) {
            completeAsked.countDown();
            return gate.thenCompose(x -> delegate.complete(key, owner, response, attempts, ttl, receipt));
        }
    }
}
