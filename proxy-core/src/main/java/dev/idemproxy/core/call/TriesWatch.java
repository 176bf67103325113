package dev.idemproxy.core.call;

import dev.idemproxy.core.receipt.ReceiptAnswer;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.tries.TryLog;

/**
 * The watch that keeps a call's tries for its receipt ({@link TryLog}); whatever else watches the
 * call (its trace) is beside it through {@link CallWatch#both}. Not thread-safe: used on the
 * call's event loop.
 */
final class TriesWatch implements CallWatch {
    private final TryLog tries;

    TriesWatch(TryLog tries) {
        this.tries = tries;
    }

    @Override
    public void forwarding(ForwardingPhase from, ForwardingPhase to) {
        if (to == ForwardingPhase.CHECKING_RECEIPT) {
            tries.checking();
        }
    }

    @Override
    public void tryStarted(int n, long nanos) {
        tries.started(n);
    }

    @Override
    public void tryEnded(int n, AttemptOutcome outcome, long nanos) {
        tries.ended(n, outcome);
    }

    @Override
    public void decided(int n, RetryDecision decision) {
        tries.decided(n, decision);
    }

    @Override
    public void receipt(int n, ReceiptAnswer answer) {
        tries.receiptAnswered(answer.status().name());
    }
}
