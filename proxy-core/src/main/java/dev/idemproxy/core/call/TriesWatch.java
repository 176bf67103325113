package dev.idemproxy.core.call;

import dev.idemproxy.core.receipt.ReceiptAnswer;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.tries.TryLog;

/**
 * The watch that keeps a call's tries for its receipt ({@link TryLog}), beside whatever else
 * watches the call. Not thread-safe: used on the call's event loop.
 */
final class TriesWatch implements CallWatch {
    private final TryLog tries;
    private final CallWatch also;

    TriesWatch(TryLog tries, CallWatch also) {
        this.tries = tries;
        this.also = also;
    }

    @Override
    public void phase(CallPhase from, CallPhase to) {
        also.phase(from, to);
    }

    @Override
    public void forwarding(ForwardingPhase from, ForwardingPhase to) {
        if (to == ForwardingPhase.CHECKING_RECEIPT) {
            tries.checking();
        }
        also.forwarding(from, to);
    }

    @Override
    public void tryStarted(int n, long nanos) {
        tries.started(n);
        also.tryStarted(n, nanos);
    }

    @Override
    public void upstreamRequest(int n, io.netty.handler.codec.http.HttpHeaders headers) {
        also.upstreamRequest(n, headers);
    }

    @Override
    public void tryEnded(int n, AttemptOutcome outcome, long nanos) {
        tries.ended(n, outcome);
        also.tryEnded(n, outcome, nanos);
    }

    @Override
    public void decided(int n, RetryDecision decision) {
        tries.decided(n, decision);
        also.decided(n, decision);
    }

    @Override
    public void receipt(int n, ReceiptAnswer answer) {
        tries.receiptAnswered(answer.status().name());
        also.receipt(n, answer);
    }

    @Override
    public void settled(CallSettlement settlement) {
        also.settled(settlement);
    }

    @Override
    public void replayed(dev.idemproxy.core.store.ClaimResult.Completed done) {
        also.replayed(done);
    }

    @Override
    public void refused(dev.idemproxy.core.problem.Problem problem, String holder) {
        also.refused(problem, holder);
    }
}
