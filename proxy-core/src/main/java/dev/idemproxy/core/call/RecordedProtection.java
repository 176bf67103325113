package dev.idemproxy.core.call;

import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.retry.OutcomeClass;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.util.Mistakes;
import dev.idemproxy.core.util.Mistakes.Mistake;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.store.ReceiptStore;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.StoreRetries;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim a protected call holds on its idempotency record: renews the lease while the call
 * lives, and when it ends stores the outcome (replayable), marks it not retained, or releases
 * the key, as the final decision says; then wakes local waiters. Only this owner can do any of
 * it (the store fences by owner token). Not thread-safe: used on the call's event loop.
 */
public final class RecordedProtection implements CallProtection {
    private static final Logger LOG = LoggerFactory.getLogger(RecordedProtection.class);

    private final RecordStore store;
    /** The receipts of the same backend: a receipt the record's end did not write goes here. */
    private final ReceiptStore receipts;
    private final RecordKey key;
    /** The claim as this call holds it: every renewal and end names it, and writes it back should the record be gone. */
    private final OwnedClaim claim;
    private final CallIdentity identity;
    private final IdempotencyPolicy policy;
    private final EventLoop loop;
    private final InFlightWaiters waiters;
    /** For a derived key, how long its record counts from the claim; null for any other key. */
    private final java.time.Duration derivedWindow;
    /** The time source of a derived key's window. */
    private final Ticker ticker;
    private final long claimedAtNanos;
    private final java.time.Instant createdAt;
    /** The jitter of the pauses between tries of a write ({@link StoreRetries#WRITES}). */
    private final RandomGenerator random;

    /** Mistakes planted for the simulation; none in production. */
    private final Mistakes mistakes;

    private ScheduledFuture<?> renewal;
    private String takenOverFrom;

    /**
     * @param claim the claim the call made (its owner token is this execution's own, see
     *              {@link CallId#owner}); its {@code createdAt},
     *              when the call started, is also its receipts' {@code createdAt}, the first written with the claim
     * @param derivedWindow for a derived key, how long its record counts from the claim (the plan's
     *              window: {@code key.window}, or an MCP route's {@code mcp.window}); null for any other key
     * @param random the jitter of the pauses between tries of a write the store did not take
     * @param ticker the time source of a derived key's window, which runs from now
     */
    public RecordedProtection(RecordStore store, ReceiptStore receipts, RecordKey key, OwnedClaim claim, CallIdentity identity,
            IdempotencyPolicy policy, EventLoop loop, InFlightWaiters waiters, java.time.Duration derivedWindow,
            RandomGenerator random, Ticker ticker) {
        this(store, receipts, key, claim, identity, policy, loop, waiters, derivedWindow, random, ticker, Mistakes.NONE);
    }

    /** As above, with {@code mistakes} planted: for the deterministic simulation only. */
    public RecordedProtection(RecordStore store, ReceiptStore receipts, RecordKey key, OwnedClaim claim, CallIdentity identity,
            IdempotencyPolicy policy, EventLoop loop, InFlightWaiters waiters, java.time.Duration derivedWindow,
            RandomGenerator random, Ticker ticker, Mistakes mistakes) {
        this.mistakes = mistakes;
        this.random = random;
        this.ticker = ticker;
        this.claimedAtNanos = ticker.nanos();
        this.derivedWindow = derivedWindow;
        this.claim = claim;
        this.createdAt = claim.createdAt();
        this.store = store;
        this.receipts = receipts;
        this.key = key;
        this.identity = identity;
        this.policy = policy;
        this.loop = loop;
        this.waiters = waiters;
    }

    /** Starts renewing the lease every third of its length, so a long call is never taken over. */
    public void startRenewing() {
        long every = Math.max(50, policy.lease().toMillis() / 3);
        renewal = loop.scheduleAtFixedRate(() -> store.renew(key, claim, policy.lease()).whenComplete((ok, err) -> {
            if (err == null && !ok) {
                LOG.warn("[call={}] lost the lease on its idempotency record (taken over after a lapse)", identity.callId());
            }
        }), every, every, TimeUnit.MILLISECONDS);
    }

    /** Marks this claim as a takeover of {@code previousCallId}'s lapsed lease. */
    public void tookOver(String previousCallId) {
        this.takenOverFrom = previousCallId == null ? "unknown" : previousCallId;
    }

    @Override
    public String takenOverFrom() {
        return takenOverFrom;
    }

    public RecordKey key() {
        return key;
    }

    /** This execution's owner token: what a release of its dead letter fences. */
    public String owner() {
        return claim.owner();
    }

    /** When the call started; its PROCESSING receipt was written with the claim. */
    public java.time.Instant createdAt() {
        return createdAt;
    }

    @Override
    public CallIdentity identity() {
        return identity;
    }

    /**
     * How long the outcome is kept: {@code ttl}; for a derived key, only until its window (the
     * route's {@code key.window}, an MCP route's {@code mcp.window}) after the first call, so the
     * same parts later than that are a new call (no fixed buckets: the window runs from this call's claim).
     */
    private java.time.Duration retention() {
        if (derivedWindow == null) {
            return policy.ttl();
        }
        java.time.Duration left = derivedWindow.minusNanos(ticker.nanos() - claimedAtNanos);
        java.time.Duration min = java.time.Duration.ofMillis(1);
        java.time.Duration kept = left.compareTo(min) < 0 ? min : left;
        return kept.compareTo(policy.ttl()) < 0 ? kept : policy.ttl();
    }

    @Override
    public java.util.concurrent.CompletionStage<Void> settle(CallSettlement s, ReceiptPut receipt) {
        if (renewal != null) {
            renewal.cancel(false);
        }
        RetryDecision d = s.decision();
        boolean keep = s.truncated() || (d != null && d.store());
        keep &= !(mistakes.has(Mistake.RELEASE_UNKNOWN_OUTCOME) && d != null && d.outcome() == OutcomeClass.UNKNOWN);  // planted only
        java.util.concurrent.CompletableFuture<Void> first = new java.util.concurrent.CompletableFuture<>();
        boolean completes = keep && s.response() != null;
        if (receipt != null && !completes) {
            writeReceipt(receipt);
        }
        ClaimResult outcome = settledAs(s, keep);
        if (outcome != null) {
            waiters.settling(key, outcome);  // before the write: a waiter's poll may see the record gone after it
        }
        record(s, keep, 1, first, completes ? receipt : null, outcome);
        return first;
    }

    /** The receipt on its own: the record is released or not retained, or was no longer ours. */
    private void writeReceipt(ReceiptPut receipt) {
        CallRecorder.writeRetrying(() -> receipts.putReceipt(receipt.receipt(), receipt.ttl()), identity, "receipt", random, 1);
    }

    /**
     * The receipt of an end the store refused, unless the record now belongs to another execution
     * of this same call (a DLQ replay, which claims under the call id with an owner token of its
     * own): that execution's receipt is the call's, and this late end must not overwrite it (with
     * a FAILED over the replay's SUCCESS, say). A record taken over by another call, or gone, does
     * not stop it: the receipt is then the only trace of what this call did.
     */
    private void writeReceiptUnlessRunAgain(ReceiptPut receipt) {
        store.get(key).whenComplete((found, err) -> {
            IdempotencyRecord now = err == null ? found.orElse(null) : null;
            if (now != null && identity.callId().equals(now.callId()) && !claim.owner().equals(now.owner())) {
                LOG.info("[call={}] not writing the ended execution's receipt: the call runs (or ran) again under the record",
                        identity.callId());
                return;
            }
            writeReceipt(receipt);
        });
    }

    /**
     * Writes the outcome; while the store does not answer, tries again with growing pauses
     * ({@link StoreRetries#WRITES}), so an outcome reached during a store outage is still kept
     * once the store is back. {@code first} completes after the first try, whatever its result.
     */
    private void record(CallSettlement s, boolean keep, int n, java.util.concurrent.CompletableFuture<Void> first,
            ReceiptPut receipt, ClaimResult outcome) {
        java.util.concurrent.CompletionStage<Boolean> done;
        if (!keep) {
            done = store.release(key, claim.owner());
        } else if (s.response() == null) {
            done = store.markNotRetained(key, claim, s.finalStatus(), s.attempts(), retention());
        } else {
            done = store.complete(key, claim, s.response(), s.attempts(), retention(), receipt);
        }
        done.whenComplete((ok, err) -> {
            first.complete(null);
            if (err != null && StoreRetries.WRITES.triesAfter(n)) {
                LOG.warn("[call={}] could not record the outcome of the call (try {}): {}; trying again",
                        identity.callId(), n, err.toString());
                loop.schedule(() -> record(s, keep, n + 1, first, receipt, outcome),
                        StoreRetries.WRITES.pauseAfter(n, random).toNanos(), TimeUnit.NANOSECONDS);
                return;
            }
            if (err != null) {
                LOG.error("[call={}] gave up recording the outcome of the call: {}", identity.callId(), err.toString());
            } else if (!ok) {
                LOG.warn("[call={}] the idempotency record was no longer ours when the call ended", identity.callId());
                if (receipt != null) {
                    writeReceiptUnlessRunAgain(receipt);  // the store wrote nothing
                }
            }
            ClaimResult settled = err == null && ok ? outcome : null;
            loop.execute(() -> waiters.wake(key, settled, loop));
        });
    }

    /** What a claim of the key answers now that the outcome is stored; null when it was released. */
    private ClaimResult settledAs(CallSettlement s, boolean keep) {
        if (!keep) {
            return null;
        }
        return s.response() == null ? new ClaimResult.NotRetained(identity.callId(), s.finalStatus(), s.attempts())
                : new ClaimResult.Completed(s.response(), identity.callId(), s.attempts());
    }
}
