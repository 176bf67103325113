package dev.idemproxy.core.retry;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.util.Ticker;
import java.util.Arrays;

/**
 * A route's retry budget, Linkerd/Finagle style (docs/configuration.md {@code retryBudget}): over a
 * sliding {@code window}, retries may number at most
 * {@code ratio × requests + minPerSecond × windowSeconds}, where requests are first attempts:
 * a retry is granted while the retries counted so far are fewer than that allowance.
 * A retry is counted only when {@link #tryAcquireRetry()} grants it; replays and coalesced
 * waits never come here.
 *
 * <p>The window is split into {@value #BUCKETS} buckets; a bucket leaves the window whole once
 * it is older than {@code window}, so the effective window lies between 9/10 and 10/10 of the
 * configured one. One instance serves one route from every event loop: its methods are
 * {@code synchronized} over a few array slots, which is cheap at the rate of first attempts
 * and retries. This class is thread-safe.
 */
public final class RouteRetryBudget {
    static final int BUCKETS = 10;

    private final RetryBudgetPolicy policy;
    private final Ticker ticker;
    private final long bucketNanos;
    private final double allowance;
    private final long[] epochs = new long[BUCKETS];
    private final long[] requests = new long[BUCKETS];
    private final long[] retries = new long[BUCKETS];

    public RouteRetryBudget(RetryBudgetPolicy policy, Ticker ticker) {
        this.policy = requireNonNull(policy, "policy");
        this.ticker = requireNonNull(ticker, "ticker");
        this.bucketNanos = Math.max(1, Backoff.nanos(policy.window()) / BUCKETS);
        this.allowance = policy.minPerSecond() * (Backoff.nanos(policy.window()) / 1e9);
        Arrays.fill(epochs, Long.MIN_VALUE);
    }

    /** Counts a request (a first attempt). */
    public synchronized void recordRequest() {
        requests[slot()]++;
    }

    /** Takes a retry token: true, and the retry is counted, when the budget allows one. */
    public synchronized boolean tryAcquireRetry() {
        int slot = slot();
        if (left() <= 0) {
            return false;
        }
        retries[slot]++;
        return true;
    }

    /** Retries the budget would grant now, for diagnostics; never negative. */
    public synchronized long remaining() {
        slot();
        return (long) Math.max(0, Math.ceil(left()));
    }

    public RetryBudgetPolicy policy() {
        return policy;
    }

    private double left() {
        long req = 0;
        long ret = 0;
        for (int i = 0; i < BUCKETS; i++) {
            req += requests[i];
            ret += retries[i];
        }
        return policy.ratio() * req + allowance - ret;
    }

    /** The current bucket's slot, after clearing every slot that has left the window. */
    private int slot() {
        long epoch = Math.floorDiv(ticker.nanos(), bucketNanos);
        int slot = (int) Math.floorMod(epoch, (long) BUCKETS);
        for (int i = 0; i < BUCKETS; i++) {
            if (epochs[i] != Long.MIN_VALUE && epoch - epochs[i] >= BUCKETS) {
                epochs[i] = Long.MIN_VALUE;
                requests[i] = 0;
                retries[i] = 0;
            }
        }
        if (epochs[slot] != epoch) {
            epochs[slot] = epoch;
            requests[slot] = 0;
            retries[slot] = 0;
        }
        return slot;
    }
}
