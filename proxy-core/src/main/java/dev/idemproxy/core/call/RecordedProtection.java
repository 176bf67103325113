package dev.idemproxy.core.call;

import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.store.IdempotencyStore;
import dev.idemproxy.core.store.RecordKey;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
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

    private final IdempotencyStore store;
    private final RecordKey key;
    private final CallIdentity identity;
    private final IdempotencyPolicy policy;
    private final EventLoop loop;
    private final InFlightWaiters waiters;
    private final boolean derivedKey;
    private final long claimedAtNanos = System.nanoTime();
    private ScheduledFuture<?> renewal;

    public RecordedProtection(IdempotencyStore store, RecordKey key, CallIdentity identity, IdempotencyPolicy policy,
            EventLoop loop, InFlightWaiters waiters, boolean derivedKey) {
        this.derivedKey = derivedKey;
        this.store = store;
        this.key = key;
        this.identity = identity;
        this.policy = policy;
        this.loop = loop;
        this.waiters = waiters;
    }

    /** Starts renewing the lease every third of its length, so a long call is never taken over. */
    public void startRenewing() {
        long every = Math.max(50, policy.lease().toMillis() / 3);
        renewal = loop.scheduleAtFixedRate(() -> store.renew(key, identity.callId(), policy.lease()).whenComplete((ok, err) -> {
            if (err == null && !ok) {
                LOG.warn("[call={}] lost the lease on its idempotency record (taken over after a lapse)", identity.callId());
            }
        }), every, every, TimeUnit.MILLISECONDS);
    }

    public RecordKey key() {
        return key;
    }

    @Override
    public CallIdentity identity() {
        return identity;
    }

    /**
     * How long the outcome is kept: {@code ttl}; for a derived key, only until {@code key.window}
     * after the first call, so the same parts later than that are a new call (no fixed buckets:
     * the window runs from this call's claim).
     */
    private java.time.Duration retention() {
        if (!derivedKey) {
            return policy.ttl();
        }
        java.time.Duration left = policy.key().window().minusNanos(System.nanoTime() - claimedAtNanos);
        java.time.Duration min = java.time.Duration.ofMillis(1);
        java.time.Duration kept = left.compareTo(min) < 0 ? min : left;
        return kept.compareTo(policy.ttl()) < 0 ? kept : policy.ttl();
    }

    @Override
    public void settle(CallSettlement s) {
        if (renewal != null) {
            renewal.cancel(false);
        }
        RetryDecision d = s.decision();
        boolean store = s.truncated() || (d != null && d.store());
        java.util.concurrent.CompletionStage<Boolean> done;
        if (!store) {
            done = this.store.release(key, identity.callId());
        } else if (s.response() == null) {
            done = this.store.markNotRetained(key, identity.callId(), s.finalStatus(), s.attempts(), retention());
        } else {
            done = this.store.complete(key, identity.callId(), s.response(), s.attempts(), retention());
        }
        done.whenComplete((ok, err) -> {
            if (err != null) {
                LOG.error("[call={}] could not record the outcome of the call: {}", identity.callId(), err.toString());
            } else if (!ok) {
                LOG.warn("[call={}] the idempotency record was no longer ours when the call ended", identity.callId());
            }
            loop.execute(() -> waiters.wake(key));
        });
    }
}
