package dev.idemproxy.core.call;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.ForwardingRecordStore;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.StoredResponse;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A record store that answers when the test says: while {@link #hold} is on, each claim and end is
 * done in the store at once but its answer waits in a queue until {@link #answerNext}; and an
 * operation can be made to fail ({@link #failNext}) without reaching the store. Not thread-safe:
 * for one test thread.
 */
final class HeldRecords extends ForwardingRecordStore {
    private final RecordStore delegate;
    private final ArrayDeque<Runnable> answers = new ArrayDeque<>();
    private boolean hold;
    private int failures;

    HeldRecords(RecordStore delegate) {
        this.delegate = delegate;
    }

    @Override
    protected RecordStore delegate() {
        return delegate;
    }

    /** Answers wait from now on (true) or come at once (false). */
    HeldRecords hold(boolean on) {
        hold = on;
        return this;
    }

    /** The next {@code n} operations fail as if the store were down, without reaching it. */
    HeldRecords failNext(int n) {
        failures = n;
        return this;
    }

    int waiting() {
        return answers.size();
    }

    /** Hands the oldest waiting answer to its caller. */
    void answerNext() {
        answers.remove().run();
    }

    private <T> CompletionStage<T> held(Supplier<CompletionStage<T>> op) {
        if (failures > 0) {
            failures--;
            return CompletableFuture.failedFuture(new StoreUnavailableException("the test's store is down"));
        }
        CompletionStage<T> done = op.get();
        if (!hold) {
            return done;
        }
        CompletableFuture<T> later = new CompletableFuture<>();
        answers.add(() -> done.whenComplete((v, err) -> {
            if (err != null) {
                later.completeExceptionally(err);
            } else {
                later.complete(v);
            }
        }));
        return later;
    }

    @Override
    public CompletionStage<ClaimResult> claim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
        return held(() -> delegate.claim(key, fingerprint, owner, lease, ctx));
    }

    @Override
    public CompletionStage<Boolean> complete(RecordKey key, OwnedClaim claim, StoredResponse response, int attempts, Duration ttl,
            ReceiptPut receipt) {
        return held(() -> delegate.complete(key, claim, response, attempts, ttl, receipt));
    }

    @Override
    public CompletionStage<Boolean> markNotRetained(RecordKey key, OwnedClaim claim, int status, int attempts, Duration ttl) {
        return held(() -> delegate.markNotRetained(key, claim, status, attempts, ttl));
    }

    @Override
    public CompletionStage<Boolean> release(RecordKey key, String owner) {
        return held(() -> delegate.release(key, owner));
    }
}
