package dev.idemproxy.core.store.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.store.ClaimAnswerLostException;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.StoreCodec;
import dev.idemproxy.core.store.StoreRetries;
import dev.idemproxy.core.store.StoredResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis backend's idempotency records ({@link RedisStore}): one string per record under
 * {@code <prefix>rec:{<record id>}} ({@link RecordValue}'s layout), claimed by {@link RedisClaims}.
 * Every owner-checked write is a Lua script ({@link RecordScripts}, {@code EVALSHA} falling back to
 * {@code EVAL}), so each is atomic; a renewal or an end that finds the key absent (Redis restarted
 * empty, flushed or evicted it) writes it back from the owner's {@link OwnedClaim} in the same
 * script, with no extra round trip, and logs it. A completion's receipt is written by the record's
 * own script in standalone and Sentinel mode (atomic with the record); in a cluster the receipt's
 * keys live in other slots, so it is a second command right after. A claim whose answer was lost is
 * undone by {@link LostClaims}. Thread-safe.
 */
final class RedisRecords implements RecordStore {
    private static final Logger log = LoggerFactory.getLogger(RedisStore.class);
    /**
     * How long a release ({@link #evict(RecordKey, String)}) keeps the settled call from writing
     * its record back: longer than that call can still be writing. A call's dead letter is written
     * as the call settles, next to its end, and the end is retried for about ten minutes while the
     * store fails ({@link StoreRetries#WRITES}), each try up to the command timeout; a renewal sent
     * before it may wait the command timeout for a cluster node.
     */
    static final Duration EVICTION_FENCE = Duration.ofMinutes(15);

    private final RedisStore backend;
    private final String prefix;
    /** Cluster mode: a record and its receipt hash to different slots, so no script may write both. */
    private final boolean cluster;
    private final RedisReceipts receipts;
    private final RedisClaims claims;
    private final LostClaims lostClaims;
    /** Stamps an end's informative completion time (expiry is the server's). */
    private final Clock clock;

    /**
     * @param clock  the time source of the records' informative creation and completion times
     * @param ticker the time source of the lost claims' lifetimes
     * @param random the jitter of the lost claims' releases; thread-safe
     */
    RedisRecords(RedisStore backend, String prefix, boolean cluster, RedisReceipts receipts, Clock clock, Ticker ticker,
            RandomGenerator random) {
        this.backend = backend;
        this.prefix = prefix;
        this.cluster = cluster;
        this.receipts = receipts;
        this.clock = clock;
        this.claims = new RedisClaims(backend, this, receipts, cluster, clock);
        this.lostClaims = new LostClaims(this, backend::isClosed, backend.eventExecutor(), ticker, random);
    }

    String recordKey(RecordKey key) {
        return prefix + "rec:{" + key.id() + "}";
    }

    /** The owners a release fenced from writing the record back ({@link RecordScripts#EVICT_SETTLED}); the record's slot. */
    String fenceKey(RecordKey key) {
        return prefix + "fence:{" + key.id() + "}";
    }

    /** The keys of a script that writes the record and may write it back: the record, its fence. */
    private String[] fenced(RecordKey key) {
        return new String[] {recordKey(key), fenceKey(key)};
    }

    @Override
    public CompletionStage<ClaimResult> claim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
        return claims.claim(key, fingerprint, owner, lease, ctx);
    }

    /** For tests: every claim runs the script, as against a Redis before 7.0. */
    void scriptClaimsOnly() {
        claims.scriptClaimsOnly();
    }

    /** Releases a native claim whose answer was lost, should it have been written ({@link LostClaims}). */
    @Override
    public void releaseLostClaim(RecordKey key, String owner, ClaimAnswerLostException lost) {
        lostClaims.release(key, owner, lost);
    }

    @Override
    public CompletionStage<Boolean> renew(RecordKey key, OwnedClaim claim, Duration lease) {
        long leaseMs = Math.max(1, lease.toMillis());
        long kept = Math.max(leaseMs, claim.retention().toMillis());
        return backend.call(() -> RecordScripts.RENEW.<Long>run(backend.commands(), fenced(key), RecordValue.ownedPrefix(claim.owner()),
                        millis(lease), RecordValue.inFlight(claim.owner(), claim.callId(), claim.fingerprint(),
                                claim.createdAt().toEpochMilli(), kept, claim.priors()), bytes(Long.toString(leaseMs + kept)))
                .thenApply(n -> written(n, claim, "its claim")));
    }

    @Override
    public CompletionStage<Boolean> complete(RecordKey key, OwnedClaim claim, StoredResponse response, int attempts, Duration ttl,
            ReceiptPut receipt) {
        return end(key, claim, "C", ttl, RecordValue.endTail(attempts, response.status(), StoreCodec.encodeResponse(response)),
                receipt);
    }

    @Override
    public CompletionStage<Boolean> markNotRetained(RecordKey key, OwnedClaim claim, int status, int attempts, Duration ttl) {
        return end(key, claim, "N", ttl, RecordValue.endTail(attempts, status, null), null);
    }

    /**
     * A renewal's or an end's answer: 1 done, 2 done into an absent key (logged: Redis lost the
     * record of a call in flight), 0 refused.
     */
    private static boolean written(long n, OwnedClaim claim, String what) {
        if (n == 2L) {
            log.warn("[call={}] its idempotency record was gone from Redis (restarted empty, flushed or evicted?): {} was written back",
                    claim.callId(), what);
        }
        return n != 0L;
    }

    /**
     * Ends the record ({@link RecordScripts#END}), or writes it ended when it is absent, and, when it
     * did and {@code receipt} is not null, writes the receipt: in the same script outside a cluster;
     * in a cluster right after, and if that fails, so does this (the record is ended by then, so a
     * retry answers false and the caller writes the receipt on its own).
     */
    private CompletionStage<Boolean> end(RecordKey key, OwnedClaim claim, String state, Duration ttl, byte[] tail,
            ReceiptPut receipt) {
        return backend.call(() -> {
            byte[][] args = {RecordValue.ownedPrefix(claim.owner()), bytes(state), millis(ttl), tail,
                    bytes(Long.toString(clock.millis())),
                    RecordValue.identity(claim.callId(), claim.fingerprint(), claim.createdAt().toEpochMilli())};
            String what = state.equals("C") ? "its outcome" : "its outcome (not retained)";
            if (receipt == null) {
                return RecordScripts.END.<Long>run(backend.commands(), fenced(key), args).thenApply(n -> written(n, claim, what));
            }
            if (!cluster) {
                String[] withReceipt = receipts.scriptKeys(recordKey(key), receipt.receipt());  // record, receipt[, index]
                String[] keys = new String[withReceipt.length + 1];
                keys[0] = withReceipt[0];
                keys[1] = fenceKey(key);
                System.arraycopy(withReceipt, 1, keys, 2, withReceipt.length - 1);
                return RecordScripts.END.<Long>run(backend.commands(), keys,
                        concat(args, receipts.scriptArgs(receipt.receipt(), receipt.ttl()))).thenApply(n -> written(n, claim, what));
            }
            return RecordScripts.END.<Long>run(backend.commands(), fenced(key), args).thenCompose(n -> written(n, claim, what)
                    ? receipts.put(receipt.receipt(), receipt.ttl()).thenApply(x -> true)
                    : CompletableFuture.completedFuture(false));
        });
    }

    @Override
    public CompletionStage<Boolean> release(RecordKey key, String owner) {
        return backend.call(() -> RecordScripts.RELEASE.<Long>run(backend.commands(), recordKey(key), RecordValue.ownedPrefix(owner))
                .thenApply(n -> n == 1L));
    }

    @Override
    public CompletionStage<Boolean> evict(RecordKey key) {
        return backend.call(() -> backend.commands().del(recordKey(key)).thenApply(n -> n > 0));
    }

    /**
     * Deletes the record and fences {@code settledOwner} ({@link RecordScripts#EVICT_SETTLED}) for
     * {@link #EVICTION_FENCE}, so that an end or renewal of that call still on its way, or still
     * being retried, does not write the record back and undo the operator's release.
     */
    @Override
    public CompletionStage<Boolean> evict(RecordKey key, String settledOwner) {
        return backend.call(() -> RecordScripts.EVICT_SETTLED.<Long>run(backend.commands(), fenced(key), millis(EVICTION_FENCE),
                bytes(settledOwner)).thenApply(n -> n == 1L));
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> get(RecordKey key) {
        return backend.call(() -> RecordScripts.READ.<List<Object>>run(backend.commands(), recordKey(key))
                .thenApply(reply -> Optional.ofNullable(RecordValue.record(reply))));
    }

    @Override
    public boolean isAvailable() {
        return backend.isAvailable();
    }

    /** Closes the backend, for its other stores too: the connection, the client and its threads. Blocking. */
    @Override
    public void close() {
        backend.close();
    }

    static byte[][] concat(byte[][] a, byte[][] b) {
        byte[][] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }

    static byte[] millis(Duration d) {
        return Long.toString(Math.max(1, d.toMillis())).getBytes(UTF_8);
    }
}
