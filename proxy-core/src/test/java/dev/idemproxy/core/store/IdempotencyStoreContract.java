package dev.idemproxy.core.store;

import dev.idemproxy.core.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.store.ClaimResult.Claimed;
import dev.idemproxy.core.store.ClaimResult.Completed;
import dev.idemproxy.core.store.ClaimResult.FingerprintMismatch;
import dev.idemproxy.core.store.ClaimResult.InFlight;
import dev.idemproxy.core.store.ClaimResult.NotRetained;
import dev.idemproxy.core.store.IdempotencyRecord.State;
import dev.idemproxy.core.testing.Claims;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every backend's {@link Stores} must have: claims, leases and fencing,
 * completion and replay, fingerprints, release, expiry ({@link RecordStore}), receipts, the
 * dead-letter queue and task retry counters. Subclasses only supply the stores and a way to let time pass (a hand-advanced clock, or the
 * Redis server's own clock). Records and receipts go through {@link RecordKeys#unique()} so tests
 * sharing one backend do not see each other's keys.
 */
public abstract class IdempotencyStoreContract {
    private static final Duration LONG = Duration.ofMinutes(5);

    /** The stores under test ({@link #use}), and each of the four. */
    protected Stores stores;
    protected RecordStore store;
    protected ReceiptStore receipts;
    protected DeadLetterStore deadLetters;
    protected TaskBudgetStore taskBudgets;
    private RecordKeys keys;

    /** New stores over a clean backend (or one shared backend with unique key names). */
    protected abstract Stores newStore() throws Exception;

    /** A lease (or TTL) short enough to let lapse in a test: any length for a hand-advanced clock. */
    protected abstract Duration shortLease();

    /** Lets at least {@code d} pass on the store's clock. */
    protected abstract void elapse(Duration d) throws Exception;

    @BeforeEach
    void openStore() throws Exception {
        use(newStore());
        keys = new RecordKeys();
    }

    /** Makes {@code s} the stores under test (closed after the test). */
    protected void use(Stores s) {
        stores = s;
        store = s.records();
        receipts = s.receipts();
        deadLetters = s.deadLetters();
        taskBudgets = s.taskBudgets();
    }

    @AfterEach
    void closeStore() {
        if (stores != null) {
            stores.close();
        }
    }

    protected static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private ClaimResult claim(RecordKey key, String fp, String owner, Duration lease) throws Exception {
        return await(store.claim(key, fp, owner, lease, new ClaimContext("call-" + owner)));
    }

    private static StoredResponse response() {
        byte[] body = new byte[4096];
        new Random(7).nextBytes(body);
        body[0] = 0;
        body[1] = (byte) 0xFF;
        return new StoredResponse(201, List.of(
                new StoredHeader("Content-Type", "application/octet-stream"),
                new StoredHeader("Set-Thing", "b"),
                new StoredHeader("X-Order", "1"),
                new StoredHeader("set-thing", "a"),
                new StoredHeader("X-Unicode", "caf\u00e9 \u2713")), body);
    }

    @Test
    void claimOnAnEmptyKeyCreatesAnInFlightRecordOwnedByTheCaller() throws Exception {
        RecordKey key = keys.unique();
        assertThat(claim(key, "fp", "o1", LONG)).isEqualTo(Claimed.FRESH);
        IdempotencyRecord r = await(store.get(key)).orElseThrow();
        assertThat(r.state()).isEqualTo(State.IN_FLIGHT);
        assertThat(r.owner()).isEqualTo("o1");
        assertThat(r.callId()).isEqualTo("call-o1");
        assertThat(r.fingerprint()).isEqualTo("fp");
        assertThat(r.leaseExpiresAt()).isAfter(r.createdAt());
        assertThat(r.completedAt()).isNull();
        assertThat(r.response()).isNull();
    }

    @Test
    void secondClaimSeesTheFirstCallInFlight() throws Exception {
        RecordKey key = keys.unique();
        claim(key, "fp", "o1", LONG);
        ClaimResult second = claim(key, "fp", "o2", LONG);
        assertThat(second).isInstanceOf(InFlight.class);
        assertThat(((InFlight) second).ownerCallId()).isEqualTo("call-o1");
        assertThat(((InFlight) second).fingerprint()).isEqualTo("fp");
        assertThat(await(store.get(key)).orElseThrow().owner()).isEqualTo("o1");
    }

    @Test
    void exactlyOneOf64RacingClaimsWins() throws Exception {
        RecordKey key = keys.unique();
        int n = 64;
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<ClaimResult>> results = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String owner = "racer-" + i;
                results.add(pool.submit(() -> {
                    go.await();
                    return claim(key, "fp", owner, LONG);
                }));
            }
            go.countDown();
            int claimed = 0;
            int inFlight = 0;
            for (Future<ClaimResult> f : results) {
                ClaimResult r = f.get(20, TimeUnit.SECONDS);
                claimed += r instanceof Claimed ? 1 : 0;
                inFlight += r instanceof InFlight ? 1 : 0;
            }
            assertThat(claimed).isEqualTo(1);
            assertThat(inFlight).isEqualTo(n - 1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void renewalKeepsOwnershipPastTheFirstLease() throws Exception {
        RecordKey key = keys.unique();
        Duration lease = shortLease();
        claim(key, "fp", "o1", lease);
        elapse(lease.dividedBy(2));
        assertThat(await(store.renew(key, Claims.owned("o1"), lease.multipliedBy(20)))).isTrue();
        elapse(lease);
        assertThat(claim(key, "fp", "o2", lease)).isInstanceOf(InFlight.class);
        assertThat(await(store.get(key)).orElseThrow().owner()).isEqualTo("o1");
    }

    @Test
    void aLapsedLeaseIsTakenOverByAnotherOwner() throws Exception {
        RecordKey key = keys.unique();
        Duration lease = shortLease();
        claim(key, "fp", "o1", lease);
        elapse(lease.plusMillis(1));
        assertThat(claim(key, "fp", "o2", LONG)).isEqualTo(Claimed.takeover("call-o1"));
        IdempotencyRecord r = await(store.get(key)).orElseThrow();
        assertThat(r.owner()).isEqualTo("o2");
        assertThat(r.callId()).isEqualTo("call-o2");
        assertThat(r.state()).isEqualTo(State.IN_FLIGHT);
    }

    @Test
    void theOldOwnerIsFencedOffAfterATakeover() throws Exception {
        RecordKey key = keys.unique();
        Duration lease = shortLease();
        claim(key, "fp", "o1", lease);
        elapse(lease.plusMillis(1));
        claim(key, "fp", "o2", LONG);

        assertThat(await(store.renew(key, Claims.owned("o1"), LONG))).isFalse();
        assertThat(await(store.complete(key, Claims.owned("o1"), response(), 1, LONG))).isFalse();
        assertThat(await(store.markNotRetained(key, Claims.owned("o1"), 200, 1, LONG))).isFalse();
        assertThat(await(store.release(key, "o1"))).isFalse();

        IdempotencyRecord r = await(store.get(key)).orElseThrow();
        assertThat(r.owner()).isEqualTo("o2");
        assertThat(r.state()).isEqualTo(State.IN_FLIGHT);
        assertThat(claim(key, "fp", "o3", LONG)).isInstanceOf(InFlight.class);
    }

    /**
     * A DLQ replay runs a settled call again under the same call id, with an owner token of its
     * own: the original execution's late writes (a renewal still on its way, an end retried after
     * a timeout) name the original's token and cannot end, extend or release the replay's claim,
     * which still ends as its own. The release fences only the settled token.
     */
    @Test
    void aSettledExecutionsWritesCannotTouchANewerExecutionOfTheSameCall() throws Exception {
        RecordKey key = keys.unique();
        String callId = "call-" + UUID.randomUUID();
        OwnedClaim original = new OwnedClaim(callId + ".0000000000000001", callId, "fp", Claims.CREATED, Duration.ZERO);
        OwnedClaim replay = new OwnedClaim(callId + ".0000000000000002", callId, "fp", Claims.CREATED, Duration.ZERO);
        StoredResponse failed = new StoredResponse(504, List.of(), "ambiguous".getBytes(StandardCharsets.UTF_8));
        assertThat(await(store.claim(key, "fp", original.owner(), LONG, new ClaimContext(callId)))).isEqualTo(Claimed.FRESH);
        assertThat(await(store.complete(key, original, failed, 1, LONG))).isTrue();
        assertThat(await(store.evict(key, original.owner()))).isTrue();
        assertThat(await(store.claim(key, "fp", replay.owner(), LONG, new ClaimContext(callId)))).isEqualTo(Claimed.FRESH);
        java.time.Instant leaseEnd = await(store.get(key)).orElseThrow().leaseExpiresAt();
        elapse(Duration.ofMillis(250));  // so that a renewal by the original, were it taken, would move the lease end by as much

        assertThat(await(store.complete(key, original, failed, 1, LONG))).as("the original's end, retried").isFalse();
        assertThat(await(store.markNotRetained(key, original, 504, 1, LONG))).isFalse();
        assertThat(await(store.renew(key, original, LONG))).as("the original's renewal, late").isFalse();
        assertThat(await(store.release(key, original.owner()))).isFalse();
        IdempotencyRecord r = await(store.get(key)).orElseThrow();
        assertThat(r.state()).isEqualTo(State.IN_FLIGHT);
        assertThat(r.owner()).isEqualTo(replay.owner());
        assertThat(r.callId()).isEqualTo(callId);
        // Redis reads a lease end from the key's PTTL and the server's clock: a millisecond either way.
        assertThat(r.leaseExpiresAt()).as("not extended by the original")
                .isBetween(leaseEnd.minusMillis(50), leaseEnd.plusMillis(50));

        StoredResponse charged = new StoredResponse(201, List.of(), "charged once".getBytes(StandardCharsets.UTF_8));
        assertThat(await(store.complete(key, replay, charged, 1, LONG))).isTrue();
        assertThat(claim(key, "fp", "o3", LONG)).isEqualTo(new Completed(charged, callId, 1));
    }

    @Test
    void aCompletedCallIsReplayedByteForByte() throws Exception {
        RecordKey key = keys.unique();
        StoredResponse response = response();
        claim(key, "fp", "o1", LONG);
        assertThat(await(store.complete(key, Claims.owned("o1"), response, 3, LONG))).isTrue();

        ClaimResult again = claim(key, "fp", "o2", LONG);
        assertThat(again).isInstanceOf(Completed.class);
        Completed c = (Completed) again;
        assertThat(c.callId()).isEqualTo("call-o1");
        assertThat(c.attempts()).isEqualTo(3);
        assertThat(c.response().status()).isEqualTo(201);
        assertThat(c.response().headers()).containsExactlyElementsOf(response.headers());
        assertThat(c.response().body()).isEqualTo(response.body());
        assertThat(c.response()).isEqualTo(response);

        IdempotencyRecord r = await(store.get(key)).orElseThrow();
        assertThat(r.state()).isEqualTo(State.COMPLETED);
        assertThat(r.status()).isEqualTo(201);
        assertThat(r.attempts()).isEqualTo(3);
        assertThat(r.completedAt()).isNotNull();
        assertThat(await(store.release(key, "o1"))).as("a completed record is not released").isFalse();
    }

    @Test
    void aLargeAndAnEmptyBodyRoundTrip() throws Exception {
        byte[] big = new byte[1024 * 1024];
        new Random(3).nextBytes(big);
        for (byte[] body : List.of(big, new byte[0])) {
            RecordKey key = keys.unique();
            claim(key, "fp", "o1", LONG);
            StoredResponse response = new StoredResponse(200, List.of(), body);
            await(store.complete(key, Claims.owned("o1"), response, 1, LONG));
            assertThat(((Completed) claim(key, "fp", "o2", LONG)).response()).isEqualTo(response);
        }
    }

    @Test
    void reusingAKeyWithADifferentFingerprintIsAMismatch() throws Exception {
        RecordKey key = keys.unique();
        claim(key, "fp-a", "o1", LONG);
        assertThat(claim(key, "fp-b", "o2", LONG)).isEqualTo(new FingerprintMismatch("call-o1"));
        await(store.complete(key, Claims.owned("o1", "fp-a"), response(), 1, LONG));
        assertThat(claim(key, "fp-b", "o3", LONG)).isEqualTo(new FingerprintMismatch("call-o1"));
        assertThat(claim(key, "fp-a", "o4", LONG)).isInstanceOf(Completed.class);
    }

    @Test
    void aReleasedKeyCanBeClaimedAgain() throws Exception {
        RecordKey key = keys.unique();
        claim(key, "fp", "o1", LONG);
        assertThat(await(store.release(key, "someone-else"))).isFalse();
        assertThat(await(store.release(key, "o1"))).isTrue();
        assertThat(await(store.get(key))).isEmpty();
        assertThat(claim(key, "fp-other", "o2", LONG)).isEqualTo(Claimed.FRESH);
        assertThat(await(store.release(key, "o1"))).isFalse();
    }

    @Test
    void aCompletedRecordExpiresAfterItsTtl() throws Exception {
        RecordKey key = keys.unique();
        Duration ttl = shortLease();
        claim(key, "fp", "o1", LONG);
        await(store.complete(key, Claims.owned("o1"), response(), 1, ttl));
        assertThat(await(store.get(key))).isPresent();
        elapse(ttl.plusMillis(1));
        assertThat(await(store.get(key))).isEmpty();
        assertThat(claim(key, "fp", "o2", LONG)).isEqualTo(Claimed.FRESH);
    }

    @Test
    void anAbandonedInFlightRecordDisappearsAfterTwoLeases() throws Exception {
        RecordKey key = keys.unique();
        Duration lease = shortLease();
        claim(key, "fp", "o1", lease);
        elapse(lease.multipliedBy(2).plusMillis(1));
        assertThat(await(store.get(key))).isEmpty();
        assertThat(claim(key, "fp", "o2", LONG)).isEqualTo(Claimed.FRESH);
    }

    /**
     * Found by the chaos suite (kill -9 of a proxy on Redis): an abandoned claim vanished two
     * leases after its owner died, so a duplicate arriving later was a fresh call and executed
     * again. With a retention the record stays, and that duplicate is a takeover.
     */
    @Test
    void anAbandonedClaimIsKeptForItsRetentionSoALateDuplicateIsATakeover() throws Exception {
        RecordKey key = keys.unique();
        Duration lease = shortLease();
        await(store.claim(key, "fp", "o1", lease, new ClaimContext("call-o1", lease.multipliedBy(20))));
        elapse(lease.multipliedBy(3));
        assertThat(await(store.get(key))).isPresent();
        assertThat(claim(key, "fp", "o2", LONG)).isEqualTo(Claimed.takeover("call-o1"));
    }

    @Test
    void aRenewalDoesNotShortenTheRetentionOfAClaim() throws Exception {
        RecordKey key = keys.unique();
        Duration lease = shortLease();
        await(store.claim(key, "fp", "o1", lease, new ClaimContext("call-o1", lease.multipliedBy(20))));
        assertThat(await(store.renew(key, Claims.owned("o1"), lease))).isTrue();
        elapse(lease.multipliedBy(3));
        assertThat(claim(key, "fp", "o2", LONG)).isEqualTo(Claimed.takeover("call-o1"));
    }

    @Test
    void anAbandonedClaimIsGoneOnceItsRetentionHasPassed() throws Exception {
        RecordKey key = keys.unique();
        Duration lease = shortLease();
        await(store.claim(key, "fp", "o1", lease, new ClaimContext("call-o1", lease.multipliedBy(2))));
        elapse(lease.multipliedBy(3).plusMillis(1));
        assertThat(await(store.get(key))).isEmpty();
        assertThat(claim(key, "fp", "o2", LONG)).isEqualTo(Claimed.FRESH);
    }

    @Test
    void aResultTooLargeToKeepAnswersNotRetained() throws Exception {
        RecordKey key = keys.unique();
        claim(key, "fp", "o1", LONG);
        assertThat(await(store.markNotRetained(key, Claims.owned("o1"), 200, 2, LONG))).isTrue();
        assertThat(claim(key, "fp", "o2", LONG)).isEqualTo(new NotRetained("call-o1", 200, 2));
        IdempotencyRecord r = await(store.get(key)).orElseThrow();
        assertThat(r.state()).isEqualTo(State.NOT_RETAINED);
        assertThat(r.response()).isNull();
    }

    @Test
    void evictDeletesARecordWhateverItsState() throws Exception {
        RecordKey key = keys.unique();
        claim(key, "fp", "o1", LONG);
        await(store.complete(key, Claims.owned("o1"), response(), 1, LONG));
        assertThat(await(store.evict(key))).isTrue();
        assertThat(await(store.evict(key))).isFalse();
        assertThat(claim(key, "fp", "o2", LONG)).isEqualTo(Claimed.FRESH);
    }

    @Test
    void aReleaseOfAMissingRecordChangesNothing() throws Exception {
        RecordKey key = keys.unique();
        assertThat(await(store.release(key, "o1"))).isFalse();
        assertThat(await(store.get(key))).isEmpty();
        assertThat(claim(key, "fp", "o2", LONG)).isEqualTo(Claimed.FRESH);
    }

    /**
     * The record of a call in flight vanished (Redis restarted empty, flushed or evicted it; an
     * operator evicted it): the owner's outcome is the truth about a call that ran, and nobody
     * holds the key, so its end writes the record back and the next duplicate is a replay, not a
     * second execution.
     */
    @Test
    void anOwnersCompletionWritesItsRecordBackWhenItVanishedAndADuplicateIsReplayed() throws Exception {
        RecordKey key = keys.unique();
        StoredResponse response = response();
        claim(key, "fp", "o1", LONG);
        assertThat(await(store.evict(key))).isTrue();
        Receipt done = new Receipt(keys.name("call"), null, "k1", "tickets", "SUCCESS", null, 201, 2, RecordKeys.T0,
                RecordKeys.T0.plusMillis(5));

        assertThat(await(store.complete(key, Claims.owned("o1", "fp"), response, 2, LONG, new ReceiptPut(done, LONG)))).isTrue();
        assertThat(await(receipts.receipt(done.callId()))).contains(done);

        ClaimResult again = claim(key, "fp", "o2", LONG);
        assertThat(again).isInstanceOf(Completed.class);
        assertThat(((Completed) again).callId()).isEqualTo("call-o1");
        assertThat(((Completed) again).attempts()).isEqualTo(2);
        assertThat(((Completed) again).response()).isEqualTo(response);
        IdempotencyRecord r = await(store.get(key)).orElseThrow();
        assertThat(r.state()).isEqualTo(State.COMPLETED);
        assertThat(r.owner()).isEqualTo("o1");
        assertThat(r.fingerprint()).isEqualTo("fp");
        assertThat(r.createdAt()).isEqualTo(Claims.CREATED);
        assertThat(claim(key, "fp-other", "o3", LONG)).as("its fingerprint was written back too")
                .isEqualTo(new FingerprintMismatch("call-o1"));
        assertThat(await(store.complete(key, Claims.owned("o1", "fp"), response, 2, LONG)))
                .as("ended now: a second end is refused").isFalse();
        assertThat(await(store.renew(key, Claims.owned("o1", "fp"), LONG))).as("nor renewed").isFalse();
    }

    @Test
    void anOutcomeNotRetainedIsWrittenBackWhenTheRecordVanished() throws Exception {
        RecordKey key = keys.unique();
        claim(key, "fp", "o1", LONG);
        await(store.evict(key));
        assertThat(await(store.markNotRetained(key, Claims.owned("o1", "fp"), 200, 3, LONG))).isTrue();
        assertThat(claim(key, "fp", "o2", LONG)).isEqualTo(new NotRetained("call-o1", 200, 3));
    }

    @Test
    void anotherOwnersRenewalOrEndIsRefusedWhileTheOwnerHoldsTheRecord() throws Exception {
        RecordKey key = keys.unique();
        claim(key, "fp", "o1", LONG);
        assertThat(await(store.complete(key, Claims.owned("o2", "fp"), response(), 1, LONG))).isFalse();
        assertThat(await(store.markNotRetained(key, Claims.owned("o2", "fp"), 200, 1, LONG))).isFalse();
        assertThat(await(store.renew(key, Claims.owned("o2", "fp"), LONG))).isFalse();
        assertThat(await(store.release(key, "o2"))).isFalse();
        IdempotencyRecord r = await(store.get(key)).orElseThrow();
        assertThat(r.owner()).isEqualTo("o1");
        assertThat(r.state()).isEqualTo(State.IN_FLIGHT);
        assertThat(claim(key, "fp", "o3", LONG)).isInstanceOf(InFlight.class);
    }

    /** The owner's renewal claims a vanished record again, so a duplicate arriving after it waits instead of executing. */
    @Test
    void aRenewalAfterTheRecordVanishedClaimsItAgainSoACompetingClaimIsRefused() throws Exception {
        RecordKey key = keys.unique();
        claim(key, "fp", "o1", LONG);
        await(store.evict(key));
        assertThat(await(store.renew(key, Claims.owned("o1", "fp"), LONG))).isTrue();

        ClaimResult competing = claim(key, "fp", "o2", LONG);
        assertThat(competing).isInstanceOf(InFlight.class);
        assertThat(((InFlight) competing).ownerCallId()).isEqualTo("call-o1");
        IdempotencyRecord r = await(store.get(key)).orElseThrow();
        assertThat(r.state()).isEqualTo(State.IN_FLIGHT);
        assertThat(r.owner()).isEqualTo("o1");
        assertThat(r.fingerprint()).isEqualTo("fp");
        assertThat(await(store.complete(key, Claims.owned("o1", "fp"), response(), 1, LONG))).isTrue();
        assertThat(claim(key, "fp", "o3", LONG)).isInstanceOf(Completed.class);
    }

    /** A claim written back by a renewal keeps the claim's retention, so a duplicate after its lease is a takeover. */
    @Test
    void aClaimWrittenBackByARenewalIsKeptForItsRetention() throws Exception {
        RecordKey key = keys.unique();
        Duration lease = shortLease();
        OwnedClaim o1 = new OwnedClaim("o1", "call-o1", "fp", Claims.CREATED, lease.multipliedBy(20));
        assertThat(await(store.renew(key, o1, lease))).isTrue();
        elapse(lease.multipliedBy(3));
        assertThat(claim(key, "fp", "o2", LONG)).isEqualTo(Claimed.takeover("call-o1"));
    }

    /**
     * A chain of takeovers (leases lapsing under owners the store held up): each new owner inherits
     * every call that may have run, oldest first, so that it checks them all and not only the last
     * (which may have taken over from a call that ran and failed to record it: seed 8179 of the
     * simulation). A renewal keeps them; an end, whose outcome is the truth, drops them.
     */
    @Test
    void aChainOfTakeoversCarriesEveryCallThatMayHaveRun() throws Exception {
        RecordKey key = keys.unique();
        Duration lease = shortLease();
        claim(key, "fp", "o1", lease);
        elapse(lease.plusMillis(1));
        assertThat(claim(key, "fp", "o2", lease)).isEqualTo(Claimed.takeover("call-o1"));
        assertThat(await(store.get(key)).orElseThrow().priors()).containsExactly("call-o1");
        elapse(lease.plusMillis(1));
        ClaimResult third = claim(key, "fp", "o3", LONG);
        assertThat(third).isEqualTo(new Claimed(true, List.of("call-o1", "call-o2")));
        assertThat(((Claimed) third).previousCallId()).isEqualTo("call-o2");
        OwnedClaim o3 = new OwnedClaim("o3", "call-o3", "fp", Claims.CREATED, Duration.ZERO, List.of("call-o1", "call-o2"));
        assertThat(await(store.renew(key, o3, LONG))).isTrue();
        IdempotencyRecord held = await(store.get(key)).orElseThrow();
        assertThat(held.owner()).isEqualTo("o3");
        assertThat(held.priors()).as("kept by a renewal").containsExactly("call-o1", "call-o2");
        assertThat(await(store.complete(key, o3, response(), 1, LONG))).isTrue();
        IdempotencyRecord ended = await(store.get(key)).orElseThrow();
        assertThat(ended.state()).isEqualTo(State.COMPLETED);
        assertThat(ended.priors()).as("an end is the truth about the call").isEmpty();
    }

    /** A record that vanished under a takeover's owner is written back by its renewal with its priors, so the next takeover still checks them. */
    @Test
    void aTakeoverWrittenBackByARenewalKeepsItsPriors() throws Exception {
        RecordKey key = keys.unique();
        Duration lease = shortLease();
        OwnedClaim o2 = new OwnedClaim("o2", "call-o2", "fp", Claims.CREATED, lease.multipliedBy(20), List.of("call-o1"));
        assertThat(await(store.renew(key, o2, lease))).isTrue();
        assertThat(await(store.get(key)).orElseThrow().priors()).containsExactly("call-o1");
        elapse(lease.multipliedBy(3));
        assertThat(claim(key, "fp", "o3", LONG)).isEqualTo(new Claimed(true, List.of("call-o1", "call-o2")));
    }

    @Test
    void routeScopeAndKeyEachSeparateRecords() throws Exception {
        RecordKey key = keys.unique();
        claim(key, "fp", "o1", LONG);
        for (RecordKey other : List.of(new RecordKey(key.route() + "x", key.scopeHash(), key.key()),
                new RecordKey(key.route(), key.scopeHash() + "x", key.key()),
                new RecordKey(key.route(), key.scopeHash(), key.key() + "x"),
                new RecordKey(key.route() + "1", "", "2:" + key.key()))) {
            assertThat(claim(other, "fp-other", "o2", LONG)).as(other.toString()).isEqualTo(Claimed.FRESH);
        }
    }

    @Test
    void receiptsAreFoundByCallIdAndReplacedByALaterPut() throws Exception {
        String callId = keys.name("call");
        Receipt started = new Receipt(callId, null, "k1", "tickets", "IN_FLIGHT", null, 0, 0, RecordKeys.T0, null);
        await(receipts.putReceipt(started, LONG));
        assertThat(await(receipts.receipt(callId))).contains(started);
        Receipt failed = new Receipt(callId, null, "k1", "tickets", "FAILED", "retries-exhausted \u2713", 503, 4,
                RecordKeys.T0, RecordKeys.T0.plusMillis(1234));
        await(receipts.putReceipt(failed, LONG));
        assertThat(await(receipts.receipt(callId))).contains(failed);
        assertThat(await(receipts.receipt(keys.name("unknown")))).isEmpty();
    }

    @Test
    void aClaimThatClaimsWritesItsReceiptWithTheRecordAndOnlyThen() throws Exception {
        RecordKey key = keys.unique();
        String biz = keys.name("biz");
        Receipt first = new Receipt(keys.name("call"), biz, "k1", "tickets", "PROCESSING", null, 0, 0, RecordKeys.T0, null);
        assertThat(await(store.claim(key, "fp", "o1", LONG, new ClaimContext(first.callId(), Duration.ZERO,
                new ReceiptPut(first, LONG))))).isEqualTo(Claimed.FRESH);
        assertThat(await(receipts.receipt(first.callId()))).contains(first);
        assertThat(await(receipts.receiptsByBizId(biz, 10))).containsExactly(first);

        // a duplicate that does not claim (in flight, mismatch) writes nothing
        Receipt dup = new Receipt(keys.name("call"), null, "k1", "tickets", "PROCESSING", null, 0, 0, RecordKeys.T0, null);
        assertThat(await(store.claim(key, "fp", "o2", LONG, new ClaimContext(dup.callId(), Duration.ZERO,
                new ReceiptPut(dup, LONG))))).isInstanceOf(InFlight.class);
        assertThat(await(store.claim(key, "other", "o3", LONG, new ClaimContext(dup.callId(), Duration.ZERO,
                new ReceiptPut(dup, LONG))))).isInstanceOf(FingerprintMismatch.class);
        assertThat(await(receipts.receipt(dup.callId()))).isEmpty();
    }

    @Test
    void aTakeoverWritesItsReceipt() throws Exception {
        RecordKey key = keys.unique();
        Duration lease = shortLease();
        claim(key, "fp", "o1", lease);
        elapse(lease.plusMillis(1));
        Receipt mine = new Receipt(keys.name("call"), null, "k1", "tickets", "PROCESSING", null, 0, 0, RecordKeys.T0, null);
        assertThat(await(store.claim(key, "fp", "o2", LONG, new ClaimContext(mine.callId(), Duration.ZERO,
                new ReceiptPut(mine, LONG))))).isEqualTo(Claimed.takeover("call-o1"));
        assertThat(await(receipts.receipt(mine.callId()))).contains(mine);
    }

    @Test
    void aCompletionWritesItsReceiptWithTheRecordButAFencedOneWritesNothing() throws Exception {
        RecordKey key = keys.unique();
        String biz = keys.name("biz");
        claim(key, "fp", "o1", LONG);
        Receipt done = new Receipt(keys.name("call"), biz, "k1", "tickets", "SUCCESS", null, 201, 2, RecordKeys.T0,
                RecordKeys.T0.plusMillis(5));
        assertThat(await(store.complete(key, Claims.owned("o1"), response(), 2, LONG, new ReceiptPut(done, LONG)))).isTrue();
        assertThat(await(receipts.receipt(done.callId()))).contains(done);
        assertThat(await(receipts.receiptsByBizId(biz, 10))).containsExactly(done);
        assertThat(claim(key, "fp", "o2", LONG)).isInstanceOf(Completed.class);

        Receipt late = new Receipt(keys.name("call"), null, "k1", "tickets", "SUCCESS", null, 201, 1, RecordKeys.T0, RecordKeys.T0);
        assertThat(await(store.complete(key, Claims.owned("o1"), response(), 1, LONG, new ReceiptPut(late, LONG))))
                .as("already completed: no longer in flight").isFalse();
        assertThat(await(receipts.receipt(late.callId()))).isEmpty();
    }

    @Test
    void receiptsAreListedByBizIdOldestFirst() throws Exception {
        String biz = keys.name("biz");
        List<Receipt> expected = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            expected.add(new Receipt(keys.name("c" + i), biz, "k" + i, "r", "SUCCESS", null, 200, 1,
                    RecordKeys.T0.plusSeconds(i), RecordKeys.T0.plusSeconds(i + 1)));
        }
        for (int i : new int[] {3, 0, 4, 1, 2}) {
            await(receipts.putReceipt(expected.get(i), LONG));
        }
        await(receipts.putReceipt(new Receipt(keys.name("other"), keys.name("biz"), "k", "r", "SUCCESS", null, 200, 1,
                RecordKeys.T0, null), LONG));
        assertThat(await(receipts.receiptsByBizId(biz, 100))).containsExactlyElementsOf(expected);
        assertThat(await(receipts.receiptsByBizId(biz, 2))).containsExactlyElementsOf(expected.subList(0, 2));
        assertThat(await(receipts.receiptsByBizId(keys.name("nobody"), 10))).isEmpty();
    }

    @Test
    void recentCallsAreListedNewestFirstAndPagedWithACursor() throws Exception {
        String route = keys.name("route");
        List<Receipt> written = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            // call ids begin with the start time (CallId); two pairs share a millisecond: the rest breaks the tie
            written.add(new Receipt(keys.callId(RecordKeys.T0.plusSeconds(i / 2)), null, "k" + i, route, "SUCCESS", null, 200, 1,
                    RecordKeys.T0.plusSeconds(i / 2), null));
        }
        for (int i : new int[] {3, 0, 4, 1, 2}) {
            await(receipts.putReceipt(written.get(i), LONG));
        }
        List<Receipt> newestFirst = new ArrayList<>(written);
        newestFirst.sort(java.util.Comparator.comparing(Receipt::callId).reversed());

        CallPage first = await(receipts.recentCalls(new CallQuery(route, null, null, null, null, 2)));
        assertThat(first.calls()).containsExactlyElementsOf(newestFirst.subList(0, 2));
        assertThat(first.nextCursor()).isNotNull();
        CallPage second = await(receipts.recentCalls(new CallQuery(route, null, null, null, first.nextCursor(), 2)));
        assertThat(second.calls()).containsExactlyElementsOf(newestFirst.subList(2, 4));
        CallPage rest = await(receipts.recentCalls(new CallQuery(route, null, null, null, second.nextCursor(), 10)));
        assertThat(rest.calls()).containsExactlyElementsOf(newestFirst.subList(4, 5));
        assertThat(await(receipts.recentCalls(new CallQuery(route, null, null, null, null, 100))).calls())
                .containsExactlyElementsOf(newestFirst);
    }

    @Test
    void recentCallsAreFilteredByRouteStatusBizIdAndTask() throws Exception {
        String route = keys.name("route");
        String biz = keys.name("biz");
        String task = keys.name("task");
        Receipt ok = new Receipt(keys.callId(RecordKeys.T0), biz, "k1", route, "SUCCESS", null, 200, 1, RecordKeys.T0, RecordKeys.T0)
                .withDetail(task, dev.idemproxy.core.tries.CallTries.NONE, null);
        Receipt failed = new Receipt(keys.callId(RecordKeys.T0.plusMillis(1)), null, "k2", route, "FAILED", "attempts_exhausted", 503, 3,
                RecordKeys.T0.plusMillis(1), RecordKeys.T0.plusMillis(2)).withDetail(task, dev.idemproxy.core.tries.CallTries.NONE, null);
        Receipt otherTask = new Receipt(keys.callId(RecordKeys.T0.plusMillis(3)), biz, "k3", route, "SUCCESS", null, 200, 1, RecordKeys.T0.plusMillis(3),
                null).withDetail(keys.name("task"), dev.idemproxy.core.tries.CallTries.NONE, null);
        for (Receipt r : List.of(ok, failed, otherTask)) {
            await(receipts.putReceipt(r, LONG));
        }
        assertThat(listed(new CallQuery(route, "FAILED", null, null, null, 10))).containsExactly(failed);
        assertThat(listed(new CallQuery(route, "SUCCESS", null, null, null, 10))).containsExactly(otherTask, ok);
        assertThat(listed(new CallQuery(route, null, biz, null, null, 10))).containsExactly(otherTask, ok);
        assertThat(listed(new CallQuery(route, null, null, task, null, 10))).containsExactly(failed, ok);
        assertThat(listed(new CallQuery(route, "SUCCESS", biz, task, null, 10))).containsExactly(ok);
        assertThat(listed(new CallQuery(keys.name("route"), null, null, null, null, 10))).isEmpty();
    }

    @Test
    void aClaimsAndACompletionsReceiptsAreListedOnceAsTheCallWithItsTriesAndHeads() throws Exception {
        RecordKey key = keys.unique();
        String route = keys.name("route");
        Receipt started = new Receipt(keys.name("call"), null, "k1", route, "PROCESSING", null, 0, 0, RecordKeys.T0, null)
                .withDetail("task-1", dev.idemproxy.core.tries.CallTries.NONE, null);
        await(store.claim(key, "fp", "o1", LONG, new ClaimContext(started.callId(), Duration.ZERO, new ReceiptPut(started, LONG))));
        assertThat(listed(new CallQuery(route, null, null, null, null, 10))).containsExactly(started);

        Receipt done = new Receipt(started.callId(), null, "k1", route, "SUCCESS", "executed", 201, 2, RecordKeys.T0,
                RecordKeys.T0.plusMillis(300)).withDetail("task-1", new dev.idemproxy.core.tries.CallTries(List.of(
                        new dev.idemproxy.core.tries.Try(1, 1, 40, 503, null, dev.idemproxy.core.tries.TryClass.UNKNOWN,
                                dev.idemproxy.core.tries.TryNext.RETRY, 200, "backoff", -1, null, null),
                        new dev.idemproxy.core.tries.Try(2, 241, 9, 201, null, dev.idemproxy.core.tries.TryClass.EXECUTED,
                                dev.idemproxy.core.tries.TryNext.ANSWER, -1, "executed", -1, null, null)), 0),
                dev.idemproxy.core.tries.CallHeads.of(new dev.idemproxy.core.tries.RequestHead("POST", "/t?token=***", List.of(
                        new dev.idemproxy.core.tries.HeadField("Authorization", "***"))),
                new dev.idemproxy.core.tries.ResponseHead(201, List.of(new dev.idemproxy.core.tries.HeadField("X-Call-Id", "c")))));
        assertThat(await(store.complete(key, Claims.owned("o1"), response(), 2, LONG, new ReceiptPut(done, LONG)))).isTrue();
        assertThat(listed(new CallQuery(route, null, null, null, null, 10))).containsExactly(done);
        assertThat(await(receipts.receipt(done.callId()))).contains(done);
    }

    /**
     * A completion whose claim wrote no receipt (none was given, or the claim's was lost) lists
     * the call all the same: a backend that indexes a call once, with its claim's receipt, must
     * still index a completion's receipt that replaced nothing.
     */
    @Test
    void aCompletionsReceiptIsListedWhenItsClaimWroteNone() throws Exception {
        RecordKey key = keys.unique();
        String route = keys.name("route");
        String biz = keys.name("biz");
        Receipt done = new Receipt(keys.name("call"), biz, "k1", route, "SUCCESS", null, 201, 1, RecordKeys.T0,
                RecordKeys.T0.plusMillis(20));
        assertThat(await(store.claim(key, "fp", "o1", LONG, new ClaimContext(done.callId())))).isInstanceOf(Claimed.class);
        assertThat(listed(new CallQuery(route, null, null, null, null, 10))).isEmpty();
        assertThat(await(store.complete(key, Claims.owned("o1"), response(), 1, LONG, new ReceiptPut(done, LONG)))).isTrue();
        assertThat(listed(new CallQuery(route, null, null, null, null, 10))).containsExactly(done);
        assertThat(await(receipts.receiptsByBizId(biz, 10))).containsExactly(done);
    }

    @Test
    void anExpiredReceiptIsNoLongerListed() throws Exception {
        String route = keys.name("route");
        Receipt r = new Receipt(keys.name("call"), null, "k", route, "SUCCESS", null, 200, 1, RecordKeys.T0, null);
        await(receipts.putReceipt(r, shortLease()));
        assertThat(listed(new CallQuery(route, null, null, null, null, 10))).containsExactly(r);
        elapse(shortLease().plusMillis(1));
        assertThat(listed(new CallQuery(route, null, null, null, null, 10))).isEmpty();
    }

    private List<Receipt> listed(CallQuery q) throws Exception {
        return await(receipts.recentCalls(q)).calls();
    }

    @Test
    void receiptsExpireAfterTheirTtl() throws Exception {
        String biz = keys.name("biz");
        Receipt r = new Receipt(keys.name("call"), biz, "k", "r", "SUCCESS", null, 200, 1, RecordKeys.T0, null);
        await(receipts.putReceipt(r, shortLease()));
        elapse(shortLease().plusMillis(1));
        assertThat(await(receipts.receipt(r.callId()))).isEmpty();
        assertThat(await(receipts.receiptsByBizId(biz, 10))).isEmpty();
    }

    @Test
    void deadLettersArePagedInFailedAtThenIdOrder() throws Exception {
        long before = await(deadLetters.deadLetterCount());
        List<DeadLetter> expected = new ArrayList<>();
        String prefix = keys.name("dlq");
        for (int i = 0; i < 5; i++) {
            // two pairs share a failedAt: the id breaks the tie
            expected.add(deadLetter(prefix + "-" + i, RecordKeys.FUTURE.plusSeconds(i / 2)));
        }
        for (int i : new int[] {4, 1, 3, 0, 2}) {
            await(deadLetters.addDeadLetter(expected.get(i)));
        }
        assertThat(await(deadLetters.deadLetterCount())).isEqualTo(before + 5);

        List<DeadLetter> seen = new ArrayList<>();
        String cursor = expected.get(0).sortKey().substring(0, 16) + " ";  // start right before our entries
        do {
            DeadLetterPage page = await(deadLetters.deadLetters(cursor, 2));
            assertThat(page.entries().size()).isLessThanOrEqualTo(2);
            seen.addAll(page.entries());
            cursor = page.nextCursor();
        } while (cursor != null);
        assertThat(seen.stream().filter(d -> d.id().startsWith(prefix)).toList()).containsExactlyElementsOf(expected);

        assertThat(await(deadLetters.deadLetter(expected.get(2).id()))).contains(expected.get(2));
        assertThat(await(deadLetters.deleteDeadLetter(expected.get(2).id()))).isTrue();
        assertThat(await(deadLetters.deleteDeadLetter(expected.get(2).id()))).isFalse();
        assertThat(await(deadLetters.deadLetter(expected.get(2).id()))).isEmpty();
        assertThat(await(deadLetters.deadLetterCount())).isEqualTo(before + 4);
    }

    /** A dead letter keeps the owner token of its execution (for a release to fence), or its call id when given none. */
    @Test
    void aDeadLetterKeepsItsExecutionsOwnerToken() throws Exception {
        DeadLetter plain = deadLetter(keys.name("dlq"), RecordKeys.FUTURE);
        assertThat(plain.owner()).isEqualTo(plain.callId());
        DeadLetter owned = new DeadLetter(keys.name("dlq"), plain.callId(), plain.taskId(), plain.bizId(), plain.recordKey(),
                plain.reason(), plain.lastStatus(), plain.attempts(), plain.failedAt(), plain.request(), plain.callId() + ".00000000000000ab");
        await(deadLetters.addDeadLetter(plain));
        await(deadLetters.addDeadLetter(owned));
        assertThat(await(deadLetters.deadLetter(plain.id())).orElseThrow().owner()).isEqualTo(plain.callId());
        assertThat(await(deadLetters.deadLetter(owned.id())).orElseThrow().owner()).isEqualTo(plain.callId() + ".00000000000000ab");
        await(deadLetters.deleteDeadLetter(plain.id()));
        await(deadLetters.deleteDeadLetter(owned.id()));
    }

    @Test
    void theFirstDeadLetterPageStartsAtTheOldestEntry() throws Exception {
        java.time.Instant longAgo = RecordKeys.T0.minusSeconds(365L * 24 * 3600 * 20);
        DeadLetter oldest = deadLetter(keys.name("dlq"), longAgo);
        DeadLetter next = deadLetter(keys.name("dlq"), longAgo.plusMillis(1));
        await(deadLetters.addDeadLetter(next));
        await(deadLetters.addDeadLetter(oldest));
        DeadLetterPage first = await(deadLetters.deadLetters(null, 1));
        assertThat(first.entries()).containsExactly(oldest);
        assertThat(first.nextCursor()).isNotNull();
        assertThat(await(deadLetters.deadLetters(first.nextCursor(), 1)).entries()).containsExactly(next);
        await(deadLetters.deleteDeadLetter(oldest.id()));
        await(deadLetters.deleteDeadLetter(next.id()));
    }

    @Test
    void taskRetriesAreChargedUpToTheMaximumAndThenRefused() throws Exception {
        String window = keys.name("task") + "@1";
        assertThat(await(taskBudgets.taskRetriesUsed(window))).isZero();
        assertThat(await(taskBudgets.chargeTaskRetry(window, 2, LONG))).isEqualTo(1L);
        assertThat(await(taskBudgets.chargeTaskRetry(window, 2, LONG))).isEqualTo(2L);
        assertThat(await(taskBudgets.chargeTaskRetry(window, 2, LONG))).isEqualTo(-1L);
        assertThat(await(taskBudgets.taskRetriesUsed(window))).isEqualTo(2L);
    }

    @Test
    void aBudgetOfZeroRefusesTheFirstChargeAndCountsNothing() throws Exception {
        String window = keys.name("task") + "@1";
        assertThat(await(taskBudgets.chargeTaskRetry(window, 0, LONG))).isEqualTo(-1L);
        assertThat(await(taskBudgets.taskRetriesUsed(window))).isZero();
    }

    @Test
    void eachWindowKeyCountsOnItsOwn() throws Exception {
        String task = keys.name("task");
        await(taskBudgets.chargeTaskRetry(task + "@1", 5, LONG));
        await(taskBudgets.chargeTaskRetry(task + "@1", 5, LONG));
        assertThat(await(taskBudgets.chargeTaskRetry(task + "@2", 5, LONG))).isEqualTo(1L);
        assertThat(await(taskBudgets.taskRetriesUsed(task + "@1"))).isEqualTo(2L);
        assertThat(await(taskBudgets.taskRetriesUsed(task + "@3"))).isZero();
    }

    @Test
    void exactlyMaxOf48RacingChargesSucceed() throws Exception {
        String window = keys.name("task") + "@{7}";
        int n = 48;
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Long>> results = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                results.add(pool.submit(() -> {
                    go.await();
                    return await(taskBudgets.chargeTaskRetry(window, 10, LONG));
                }));
            }
            go.countDown();
            List<Long> charged = new ArrayList<>();
            for (Future<Long> f : results) {
                charged.add(f.get(20, TimeUnit.SECONDS));
            }
            assertThat(charged.stream().filter(c -> c > 0)).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
            assertThat(charged.stream().filter(c -> c < 0)).hasSize(n - 10).containsOnly(-1L);
        } finally {
            pool.shutdownNow();
        }
        assertThat(await(taskBudgets.taskRetriesUsed(window))).isEqualTo(10L);
    }

    @Test
    void aTaskCounterExpiresAfterItsTtl() throws Exception {
        String window = keys.name("task") + "@1";
        Duration ttl = shortLease();
        await(taskBudgets.chargeTaskRetry(window, 1, ttl));
        assertThat(await(taskBudgets.chargeTaskRetry(window, 1, ttl))).isEqualTo(-1L);
        elapse(ttl);
        assertThat(await(taskBudgets.taskRetriesUsed(window))).isZero();
        assertThat(await(taskBudgets.chargeTaskRetry(window, 1, ttl))).isEqualTo(1L);
    }

    private DeadLetter deadLetter(String id, java.time.Instant failedAt) {
        byte[] body = "{\"orderId\":42}".getBytes(StandardCharsets.UTF_8);
        return new DeadLetter(id, "call-" + id, "task-1", "biz-1", new RecordKey("tickets", "scope#", "key " + id),
                "ambiguous-outcome", 504, 4, failedAt,
                new StoredRequest("POST", "/api/tickets?x=1", List.of(new StoredHeader("Content-Type", "application/json")), body));
    }

    /** Unique names per test, so tests sharing one backend (Redis) never collide. */
    protected static final class RecordKeys {
        static final java.time.Instant T0 = java.time.Instant.parse("2030-01-01T00:00:00Z");
        /** Later than any other test's dead letters, so a cursor can start right before them. */
        static final java.time.Instant FUTURE = java.time.Instant.parse("2100-01-01T00:00:00Z")
                .plusMillis(Math.floorMod(UUID.randomUUID().getLeastSignificantBits(), 1_000_000_000L));
        private final String run = UUID.randomUUID().toString().substring(0, 8);
        private int n;

        RecordKey unique() {
            n++;
            return new RecordKey("route-" + run, "scope-" + n, "key {" + n + "}:" + run);
        }

        String name(String what) {
            n++;
            return what + "-" + run + "-" + n;
        }

        /** A call id as CallId makes them: the start time's epoch ms in 12 hex digits, then 20 more (unique here). */
        String callId(java.time.Instant start) {
            n++;
            return String.format("%012x%012x%08x", start.toEpochMilli(), Long.parseLong(run, 16), n);
        }
    }
}
