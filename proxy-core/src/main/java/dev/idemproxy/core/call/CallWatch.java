package dev.idemproxy.core.call;

import dev.idemproxy.core.receipt.ReceiptAnswer;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.store.ClaimResult;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * What one protected call tells about itself as it goes, for whoever keeps or shows it: its
 * phases, its tries (each start, how it ended, what was decided after it), the receipt checks,
 * and its end. Called on the call's event loop, in order; an implementation must not block, and
 * must not throw (the call would). Made per call by {@link CallWatchers}; {@link #NONE} watches
 * nothing.
 */
public interface CallWatch {
    /** Watches nothing. */
    CallWatch NONE = new CallWatch() {};

    /** The call moved from one phase to another. */
    default void phase(CallPhase from, CallPhase to) {
    }

    /** The call's attempts moved from one phase to another. */
    default void forwarding(ForwardingPhase from, ForwardingPhase to) {
    }

    /** Try {@code n} began, at {@code nanos} on the call's ticker. */
    default void tryStarted(int n, long nanos) {
    }

    /**
     * Try {@code n}'s request headers, just before it goes upstream: a watch may add its own (a
     * trace context), never remove or change the call's.
     */
    default void upstreamRequest(int n, HttpHeaders headers) {
    }

    /** Try {@code n} ended with {@code outcome}, at {@code nanos} on the call's ticker. */
    default void tryEnded(int n, AttemptOutcome outcome, long nanos) {
    }

    /** What was decided after try {@code n}: a retry after its delay (and why), or a stop (and why). */
    default void decided(int n, RetryDecision decision) {
    }

    /** A receipt check after try {@code n} (0: of a taken-over call's predecessor) answered. */
    default void receipt(int n, ReceiptAnswer answer) {
    }

    /** The call settled. */
    default void settled(CallSettlement settlement) {
    }

    /** The gate answered the call from the store: a duplicate of {@code done}'s call. */
    default void replayed(ClaimResult.Completed done) {
    }

    /** The gate refused the call with {@code problem} ({@code holder}: the call that holds the key, or null). */
    default void refused(Problem problem, String holder) {
    }
}
