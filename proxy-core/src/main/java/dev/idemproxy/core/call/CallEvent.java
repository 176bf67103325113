package dev.idemproxy.core.call;

import dev.idemproxy.core.receipt.ReceiptAnswer;
import dev.idemproxy.core.retry.TaskBudgetDecision;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.upstream.UpstreamConnection;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;

/**
 * Everything that reaches a protected call after it has started: an answer of the store, of the
 * upstream or of the receipt endpoint, a timer, a client's close or drain. Each enters through
 * the call's one door ({@link Door}), on the call's event loop, one at a time. Events that name an
 * attempt belong to that attempt only: a late one (a connection for an attempt that timed out) is
 * let go. All implementations are immutable, but a {@link Content} carries a buffer the call owns.
 */
sealed interface CallEvent {

    /** Events that carry nothing but what they are. */
    enum Signal implements CallEvent {
        /** The upstream's read batch ended: a good moment to flush toward the client. */
        READ_COMPLETE,
        /** No bytes from the upstream for the route's {@code timeouts.idle}. */
        UPSTREAM_IDLE,
        /** The client's connection can take more (it drained its buffer, or it went away). */
        CLIENT_WRITABLE,
        /** The client's connection closed. */
        CLIENT_GONE,
        /** The answer's last write went to the client's socket, or failed: the call is over. */
        ANSWER_WRITTEN,
        /** A third of the lease has passed: renew it. */
        RENEW,
        /** The call begins (its first transition, so even that one runs to completion before any answer). */
        START
    }

    /** What the call waits for on the loop's clock. */
    enum TimerKind {
        /** The attempt's time (its {@code perTry}, or what was left before the deadline) ran out. */
        ATTEMPT,
        /** The pause before the next attempt is over. */
        BACKOFF,
        /** Time to ask the store again about the in-flight call this one waits for. */
        POLL,
        /** Time to ask the receipt endpoint again (it said PROCESSING). */
        RECEIPT_POLL
    }

    /** The store answered the claim: {@code failure} when it could not. */
    record ClaimAnswered(ClaimResult result, Throwable failure) implements CallEvent {}

    /** The owner of the call this one waits for settled in this process; null: it released the key. */
    record OwnerSettled(ClaimResult outcome) implements CallEvent {}

    /** The task's budget as read before the first attempt; null: the store did not answer. */
    record BudgetRead(TaskBudgetDecision budget) implements CallEvent {}

    /** The answer to taking the task's token for a retry; null: the store did not answer. */
    record TokenTaken(TaskBudgetDecision budget) implements CallEvent {}

    /** A connection for {@code attempt}, or the connect failure. */
    record Connected(int attempt, UpstreamConnection conn, Throwable failure) implements CallEvent {}

    /** The request of {@code attempt} could not be written. */
    record SendFailed(int attempt, Throwable cause) implements CallEvent {}

    /** The upstream's final response head. */
    record Head(HttpResponse head) implements CallEvent {}

    /** A piece of the upstream's response body; the last is a {@code LastHttpContent}. */
    record Content(HttpContent content) implements CallEvent {}

    /** The upstream connection closed or failed ({@code cause} may be null). */
    record UpstreamClosed(Throwable cause) implements CallEvent {}

    /** A timer of {@code attempt}'s ran out. */
    record Timer(TimerKind kind, int attempt) implements CallEvent {}

    /** The receipt endpoint's answer. */
    record ReceiptAnswered(ReceiptAnswer answer) implements CallEvent {}

    /** Try {@code n} of writing the record's end answered: {@code ok} it was written, false it was no longer ours. */
    record Recorded(int n, boolean ok, Throwable failure) implements CallEvent {}

    /** The store's answer to renewing the lease: false when the record is no longer the call's. */
    record Renewed(boolean ok, Throwable failure) implements CallEvent {}

    /** The call's record as the store has it now (null: none), read after its end was refused. */
    record RecordFound(IdempotencyRecord record, Throwable failure) implements CallEvent {}

    /** The release of an abandoned call's claim answered ({@code failure} null when it went through). */
    record Released(Throwable failure) implements CallEvent {}

    /** Try {@code n} of writing the outcome a waiter keeps in the record it took ({@link KeptOutcome}) answered: {@code ok} it was written. */
    record Kept(int n, boolean ok, Throwable failure) implements CallEvent {}

    /** Lets go of a late event's resources: a piece of a body is released, a connection closed unused. */
    static void drop(CallEvent e) {
        if (e instanceof Content c) {
            c.content().release();
        } else if (e instanceof Connected c && c.conn() != null) {
            c.conn().release(false);
        }
    }
}
