package dev.idemproxy.core.sim;

import dev.idemproxy.core.store.ClaimAnswerLostException;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.ForwardingRecordStore;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.StoredResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * One proxy's view of the shared record store, through its {@link StoreWire}: latency and stalls,
 * failures before the write ({@link StoreUnavailableException}), answers lost after the write
 * committed ({@link ClaimAnswerLostException} for a claim, a failed stage for an end), failed
 * renewals. It notes every claim and end in {@link Claims}, reading the record just before an end
 * is applied, so that an end the fencing should have refused is caught, and, for the embedded
 * store, where its log ended when each claim and end was answered (the crash invariants ask
 * whether a power loss kept it). A lost claim's release
 * ({@link #releaseLostClaim}) goes down the same wire, without faults. Not thread-safe.
 */
final class FaultyRecordStore extends ForwardingRecordStore {
    private final RecordStore delegate;
    private final StoreWire wire;
    private final StoreFaults faults;
    private final SplittableRandom random;
    private final Claims claims;
    private final int proxy;
    private final Trace trace;
    private final SimTime time;
    /** Where the log ended when a write was answered (the embedded store's), or -1. */
    private final LongSupplier acked;

    FaultyRecordStore(RecordStore delegate, StoreWire wire, StoreFaults faults, SplittableRandom random, Claims claims, int proxy,
            World w, LongSupplier acked) {
        this.delegate = delegate;
        this.wire = wire;
        this.faults = faults;
        this.random = random;
        this.claims = claims;
        this.proxy = proxy;
        this.trace = w.trace;
        this.time = w.time;
        this.acked = acked;
    }

    @Override
    protected RecordStore delegate() {
        return delegate;
    }

    private enum Fault { NONE, BEFORE, LOST_AFTER }

    private Fault fault() {
        double x = random.nextDouble();
        return x < faults.failBefore() ? Fault.BEFORE : x < faults.failBefore() + faults.lostAfter() ? Fault.LOST_AFTER : Fault.NONE;
    }

    @Override
    public CompletionStage<ClaimResult> claim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
        Fault f = fault();
        return wire.issue(faults.delay(random), () -> {
            trace.step("claim", proxy, f.ordinal(), key.id() + " " + ctx.callId());
            if (f == Fault.BEFORE) {
                return CompletableFuture.failedFuture(new StoreUnavailableException("simulated: the claim failed"));
            }
            return delegate.claim(key, fingerprint, owner, lease, ctx).thenCompose(r -> claimed(r, f, key, owner, lease, ctx));
        });
    }

    /** The store applied a claim (a store of its own answers it later: the embedded store, after its write). */
    private CompletionStage<ClaimResult> claimed(ClaimResult r, Fault f, RecordKey key, String owner, Duration lease, ClaimContext ctx) {
        if (r instanceof ClaimResult.Claimed) {
            claims.claimed(owner, ctx.callId(), key, proxy, ((ClaimResult.Claimed) r).takeover(), time.nanos());
        }
        if (trace.verbose()) {
            trace.note("  claim of " + ctx.callId() + " answered " + r + (f == Fault.NONE ? "" : " (lost: " + f + ")"));
        }
        if (f == Fault.LOST_AFTER && r instanceof ClaimResult.Claimed c && c.takeover()) {
            // ClaimAnswerLostException's contract: only a fresh claim can be written unanswered that way
            // (Redis: SET NX); a takeover's lost answer is a plain outage (its Lua script's reply lost)
            return CompletableFuture.failedFuture(new StoreUnavailableException("simulated: the takeover's answer was lost"));
        }
        if (f == Fault.LOST_AFTER) {
            return CompletableFuture.failedFuture(new ClaimAnswerLostException("simulated: the claim's answer was lost",
                    null, lease.plus(ctx.retention())));
        }
        if (r instanceof ClaimResult.Claimed) {
            claims.answered(owner, acked.getAsLong());
        }
        return CompletableFuture.completedFuture(r);
    }

    @Override
    public CompletionStage<Boolean> renew(RecordKey key, OwnedClaim claim, Duration lease) {
        boolean fail = random.nextDouble() < faults.failRenew();
        return wire.issue(faults.delay(random), () -> {
            trace.step("renew", proxy, fail ? 1 : 0, key.id());
            return fail ? CompletableFuture.failedFuture(new StoreUnavailableException("simulated: the renewal failed"))
                    : delegate.renew(key, claim, lease);
        });
    }

    @Override
    public CompletionStage<Boolean> complete(RecordKey key, OwnedClaim claim, StoredResponse response, int attempts, Duration ttl,
            ReceiptPut receipt) {
        return end(key, claim.owner(), Claims.End.STORED, () -> delegate.complete(key, claim, response, attempts, ttl, receipt)
                .thenApply(done -> {
                    if (done) {
                        claims.stored(claim.owner(), claim.callId(), response);
                    }
                    return done;
                }));
    }

    @Override
    public CompletionStage<Boolean> markNotRetained(RecordKey key, OwnedClaim claim, int status, int attempts, Duration ttl) {
        return end(key, claim.owner(), Claims.End.STORED, () -> delegate.markNotRetained(key, claim, status, attempts, ttl));
    }

    @Override
    public CompletionStage<Boolean> release(RecordKey key, String owner) {
        return end(key, owner, Claims.End.RELEASED, () -> delegate.release(key, owner));
    }

    /**
     * An end, with the record as it was just before it applied: read just before it (a store of its
     * own runs the read and the end one after the other, in the order given).
     */
    private CompletionStage<Boolean> end(RecordKey key, String owner, Claims.End end, Supplier<CompletionStage<Boolean>> op) {
        Fault f = fault();
        claims.endIssued(owner, end);
        return wire.issue(faults.delay(random), () -> {
            trace.step("end", proxy, end.ordinal() * 10 + f.ordinal(), key.id());
            if (f == Fault.BEFORE) {
                return CompletableFuture.failedFuture(new StoreUnavailableException("simulated: the write failed"));
            }
            CompletionStage<Optional<IdempotencyRecord>> read = delegate.get(key);
            return read.thenCombine(op.get(), (found, done) -> {
                IdempotencyRecord before = found.orElse(null);
                claims.ended(owner, end, before, done);
                if (trace.verbose()) {
                    trace.note("  " + end + " by " + owner + " over " + (before == null ? "nothing" : before.state() + " of "
                            + before.owner()) + ": " + done);
                }
                return done;
            }).thenCompose(done -> {
                if (f == Fault.LOST_AFTER) {
                    return CompletableFuture.failedFuture(new StoreUnavailableException("simulated: the write's answer was lost"));
                }
                claims.endAnswered(owner, end, done, acked.getAsLong());
                return CompletableFuture.completedFuture(done);
            });
        });
    }

    @Override
    public void releaseLostClaim(RecordKey key, String owner, ClaimAnswerLostException lost) {
        wire.issue(0, () -> {
            trace.step("releaseLost", proxy, 0, key.id());
            return delegate.release(key, owner);
        });
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> get(RecordKey key) {
        return wire.issue(faults.delay(random), () -> delegate.get(key));
    }
}
