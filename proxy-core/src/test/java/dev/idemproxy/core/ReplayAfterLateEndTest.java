package dev.idemproxy.core;

import dev.idemproxy.core.testing.Await;

import static dev.idemproxy.core.testing.UpstreamAction.after;
import static dev.idemproxy.core.testing.UpstreamAction.hang;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.call.ReplayAuthority;
import dev.idemproxy.core.dlq.DeadLetterPolicy;
import dev.idemproxy.core.route.IdsPolicy;
import dev.idemproxy.core.retry.RetryPolicy;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import dev.idemproxy.core.route.Timeouts;
import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.ForwardingRecordStore;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.Receipt;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A DLQ replay runs the call again under its call id while the original execution's end may still
 * be on its way (a Redis END that timed out and is retried, or one the server runs late): that end
 * must not land on the replay's claim as if it were the replay's own. Were both executions to own
 * the record under the same token (the call id), the original's stored 504 would end the replay's
 * record, the replay's own 201 would be refused as "no longer ours", and every later duplicate
 * would get the 504 for a call that succeeded.
 */
@ExtendWith(LeakDetection.class)
class ReplayAfterLateEndTest {
    static final String KEY = "k-replay-after-late-end";
    static final String BODY = "{\"seat\":\"12A\"}";

    TestUpstream upstream;
    HeldFirstEndStore store;
    /** The memory stores behind {@link #store}. */
    Stores memory;
    ProxyServer proxy;

    @BeforeEach
    void start() throws Exception {
        upstream = TestUpstream.start();
        memory = MemoryStore.create(1000, Clock.systemUTC());
        store = new HeldFirstEndStore(memory.records());
        // No retries; a 1 s perTry ends the hanging first attempt as an unknown outcome (504, stored).
        Timeouts timeouts = new Timeouts(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofSeconds(60), Duration.ofSeconds(10));
        Route route = new Route("tickets", new RouteMatch(null, "/tickets", Set.of()), upstream.uri(), Set.of(), timeouts,
                OneLoopProxy.protectPosts(Duration.ofHours(1)), RetryPolicy.DEFAULT, IdsPolicy.DEFAULT, null,
                DeadLetterPolicy.DEFAULT, TlsPolicy.DEFAULT, PoolPolicy.DEFAULT);
        proxy = OneLoopProxy.start(route, memory.withRecords(store));
    }

    @AfterEach
    void stop() throws Exception {
        store.firstEnd.complete(null);
        proxy.stop(Duration.ofSeconds(1));
        store.close();
        upstream.close();
    }

    private static String post(String extraHeaders) {
        return "POST /tickets HTTP/1.1\r\nHost: t\r\nIdempotency-Key: " + KEY + "\r\n" + extraHeaders + "Content-Length: "
                + BODY.length() + "\r\n\r\n" + BODY;
    }

    @Test
    void theOriginalsLateEndCannotEndTheReplaysClaim() throws Exception {
        upstream.enqueue(hang());
        CompletableFuture<Void> replayAnswers = new CompletableFuture<>();
        upstream.enqueue(after(replayAnswers, respond(201, "charged once")));
        DeadLetter entry;
        try (RawHttp original = RawHttp.connect("127.0.0.1", proxy.address().getPort());
                RawHttp replay = RawHttp.connect("127.0.0.1", proxy.address().getPort())) {
            entry = replayWhileTheOriginalsEndIsHeld(original, replay);
            assertThat(upstream.awaitRequests(2, Duration.ofSeconds(5))).hasSize(2);
            IdempotencyRecord replaying = await(store.get(entry.recordKey())).orElseThrow();
            assertThat(replaying.state()).isEqualTo(IdempotencyRecord.State.IN_FLIGHT);
            assertThat(replaying.callId()).isEqualTo(entry.callId());

            store.firstEnd.complete(null);  // the original's end lands now, on the replay's claim
            assertThat(original.readResponse().status()).isEqualTo(504);
            assertThat(await(store.get(entry.recordKey())).orElseThrow().state())
                    .as("the replay still holds its claim").isEqualTo(IdempotencyRecord.State.IN_FLIGHT);

            replayAnswers.complete(null);
            RawHttp.Response r = replay.readResponse();
            assertThat(r.status()).isEqualTo(201);
            assertThat(r.header("X-Call-Id")).isEqualTo(entry.callId());
        }
        IdempotencyRecord settled = await(store.get(entry.recordKey())).orElseThrow();
        assertThat(settled.state()).isEqualTo(IdempotencyRecord.State.COMPLETED);
        assertThat(settled.status()).as("the replay's outcome is the record's").isEqualTo(201);
        try (RawHttp duplicate = RawHttp.connect("127.0.0.1", proxy.address().getPort())) {
            duplicate.write(post(""));
            RawHttp.Response r = duplicate.readResponse();
            assertThat(r.status()).isEqualTo(201);
            assertThat(r.bodyAsString()).isEqualTo("charged once");
            assertThat(r.header("Idempotent-Replayed")).isEqualTo("true");
        }
        assertThat(upstream.requestCount()).isEqualTo(2);
    }

    /**
     * The original's end lands only after the replay has ended: refused (the record is the
     * replay's), it must not write the original's FAILED receipt over the replay's SUCCESS, which
     * is the call's receipt now.
     */
    @Test
    void theOriginalsLateEndDoesNotOverwriteTheReplaysReceipt() throws Exception {
        upstream.enqueue(hang());
        upstream.enqueue(respond(201, "charged once"));
        DeadLetter entry;
        try (RawHttp original = RawHttp.connect("127.0.0.1", proxy.address().getPort());
                RawHttp replay = RawHttp.connect("127.0.0.1", proxy.address().getPort())) {
            entry = replayWhileTheOriginalsEndIsHeld(original, replay);
            assertThat(replay.readResponse().status()).isEqualTo(201);
            assertThat(awaitReceipt(entry.callId(), "SUCCESS").httpStatus()).isEqualTo(201);

            store.firstEnd.complete(null);  // the original's end lands now, after the replay's
            assertThat(original.readResponse().status()).isEqualTo(504);
        }
        // The refused end's receipt, were it written, is a store write away: the replay's stays.
        Await.holdsFor("the call's receipt is the replay's", java.time.Duration.ofMillis(300),
                () -> "SUCCESS".equals(receiptStatus(entry.callId())));
        Receipt r = await(memory.receipts().receipt(entry.callId())).orElseThrow();
        assertThat(r.status()).as("the call's receipt is the replay's").isEqualTo("SUCCESS");
        assertThat(r.httpStatus()).isEqualTo(201);
        assertThat(await(store.get(entry.recordKey())).orElseThrow().status()).isEqualTo(201);
    }

    /**
     * The original call hangs and dead-letters; once its end is on its way (held by the store), does
     * what {@code POST /dlq/{id}/replay} does: evicts the settled record and sends the call again as
     * itself. Returns the dead letter.
     */
    private DeadLetter replayWhileTheOriginalsEndIsHeld(RawHttp original, RawHttp replay) throws Exception {
        original.write(post(""));
        DeadLetter entry = awaitDeadLetter();
        Await.until("the original's end on its way", java.time.Duration.ofSeconds(5), store.endAsked::get);
        assertThat(await(store.evict(entry.recordKey(), entry.owner()))).isTrue();
        replay.write(post(ReplayAuthority.TOKEN_HEADER + ": " + proxy.replayToken() + "\r\n"
                + ReplayAuthority.RECORD_HEADER + ": " + entry.recordKey().id() + "\r\nX-Call-Id: " + entry.callId() + "\r\n"));
        return entry;
    }

    private Receipt awaitReceipt(String callId, String status) {
        return Await.value("a " + status + " receipt for " + callId, java.time.Duration.ofSeconds(5),
                () -> await(memory.receipts().receipt(callId)), r -> r.isPresent() && r.get().status().equals(status)).get();
    }

    private String receiptStatus(String callId) {
        try {
            return await(memory.receipts().receipt(callId)).map(Receipt::status).orElse(null);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private DeadLetter awaitDeadLetter() {
        return Await.value("a dead letter", java.time.Duration.ofSeconds(10), () -> await(memory.deadLetters().deadLetters(null, 10)).entries(),
                entries -> !entries.isEmpty()).get(0);
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** The memory store, whose first {@code complete} (the original call's end) waits for {@link #firstEnd}. */
    static final class HeldFirstEndStore extends ForwardingRecordStore {
        final CompletableFuture<Void> firstEnd = new CompletableFuture<>();
        final AtomicBoolean endAsked = new AtomicBoolean();

        private final RecordStore delegate;

        HeldFirstEndStore(RecordStore delegate) {
            this.delegate = delegate;
        }

        @Override
        protected RecordStore delegate() {
            return delegate;
        }

        @Override
        public CompletionStage<Boolean> complete(RecordKey key, OwnedClaim owner, StoredResponse response, int attempts, Duration ttl,
                ReceiptPut receipt) {
            if (endAsked.compareAndSet(false, true)) {
                return firstEnd.thenCompose(x -> delegate.complete(key, owner, response, attempts, ttl, receipt));
            }
            return delegate.complete(key, owner, response, attempts, ttl, receipt);
        }
    }
}
