package dev.idemproxy.core.call;

import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.receipt.ReceiptAnswer;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.store.ClaimResult;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * Two watches of one call ({@link CallWatch#both}): every hook goes to the first, then to the
 * second. Each hook of {@link CallWatch} is passed on here, and a test checks that none is
 * missed. Not thread-safe: used on the call's event loop, as its two watches are.
 */
final class BothWatches implements CallWatch {
    private final CallWatch first;
    private final CallWatch second;

    BothWatches(CallWatch first, CallWatch second) {
        this.first = first;
        this.second = second;
    }

    @Override
    public void phase(CallPhase from, CallPhase to) {
        first.phase(from, to);
        second.phase(from, to);
    }

    @Override
    public void forwarding(ForwardingPhase from, ForwardingPhase to) {
        first.forwarding(from, to);
        second.forwarding(from, to);
    }

    @Override
    public void tryStarted(int n, long nanos) {
        first.tryStarted(n, nanos);
        second.tryStarted(n, nanos);
    }

    @Override
    public void upstreamRequest(int n, HttpHeaders headers) {
        first.upstreamRequest(n, headers);
        second.upstreamRequest(n, headers);
    }

    @Override
    public void tryEnded(int n, AttemptOutcome outcome, long nanos) {
        first.tryEnded(n, outcome, nanos);
        second.tryEnded(n, outcome, nanos);
    }

    @Override
    public void decided(int n, RetryDecision decision) {
        first.decided(n, decision);
        second.decided(n, decision);
    }

    @Override
    public void receipt(int n, ReceiptAnswer answer) {
        first.receipt(n, answer);
        second.receipt(n, answer);
    }

    @Override
    public void settled(CallSettlement settlement) {
        first.settled(settlement);
        second.settled(settlement);
    }

    @Override
    public void replayed(ClaimResult.Completed done) {
        first.replayed(done);
        second.replayed(done);
    }

    @Override
    public void refused(Problem problem, String holder) {
        first.refused(problem, holder);
        second.refused(problem, holder);
    }

    @Override
    public void passed(int status, boolean failed) {
        first.passed(status, failed);
        second.passed(status, failed);
    }
}
