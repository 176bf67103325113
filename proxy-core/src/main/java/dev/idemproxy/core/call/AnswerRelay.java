package dev.idemproxy.core.call;

import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.store.StoredResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * The answer leg of a {@link ProtectedCall}: holds an attempt's answer while its fate is decided
 * (its head, while the task's token is asked for: {@link HeldResponse}; all of it, while its
 * dialect judges it or its receipt is checked: {@link HeldAnswer}), then streams the final answer
 * to the client while capturing it for the record ({@link ResponseCapture}), with back-pressure
 * both ways. It decides nothing: each piece it is given comes back as a {@link Step} saying what
 * the attempt loop must do next, and the answer's last piece is handed back, not written, as the
 * answer's end waits for the call's record.
 *
 * <p>Ownership: held contents are owned here until streamed on or released; streamed contents
 * pass to the {@link ClientSide}. Not thread-safe: used on the call's event loop.
 */
final class AnswerRelay {
    /** What a piece of the answer asks of the attempt loop. */
    enum Step {
        /** Nothing: it was held, streamed or dropped. */
        NONE,
        /** Stop reading the upstream (held contents queue up, or the client cannot take more). */
        PAUSE,
        /** The answer kept whole is all in: judge it ({@link #whole()}), or check its receipt. */
        WHOLE_IN,
        /** The answer kept to be judged grew past maxResponseBody: it goes on as it comes, unjudged. */
        TOO_LARGE_TO_JUDGE,
        /** The answer kept for a receipt check could not be kept whole: the check goes on without it. */
        RECEIPT_WITHOUT_ANSWER,
        /** The final answer's last piece came ({@link #takeLast()}): settle the call. */
        LAST,
        /** The upstream closed or went silent mid-answer: the call ends truncated. */
        CUT,
        /** The upstream closed before any answer was held or streamed: the attempt failed. */
        FAILED
    }

    private final ClientSide client;
    private final CallDialect dialect;
    private final ProxyCall call;
    /** True once the final answer's head has gone to the client: the call is committed. */
    private boolean answering;
    /** The attempt's answer was given up for a retry: its remaining content is dropped. */
    private boolean discarding;
    private boolean upstreamWantsClose;
    private ResponseCapture capture;
    private HeldResponse held;
    private HeldAnswer whole;
    private LastHttpContent last;

    AnswerRelay(ClientSide client, ProxyCall call) {
        this.client = client;
        this.call = call;
        this.dialect = call.dialect();
    }

    boolean answering() {
        return answering;
    }

    /** Whether the upstream connection may go back to its pool once the answer is read. */
    boolean reusable() {
        return !upstreamWantsClose;
    }

    void newAttempt() {
        answering = false;
        discarding = false;
    }

    /** Keeps an answer whole: {@code outcome} null to have its dialect judge it; else an unknown answer whose receipt is checked. */
    void holdWhole(HttpResponse resp, AttemptOutcome outcome) {
        upstreamWantsClose = !HttpUtil.isKeepAlive(resp);
        whole = new HeldAnswer(resp, outcome, call.route().idempotency().maxResponseBody());
    }

    /** Keeps an answer's head (and what content comes meanwhile) until its retry decision. */
    void holdForDecision(HttpResponse resp) {
        upstreamWantsClose = !HttpUtil.isKeepAlive(resp);
        held = new HeldResponse(resp);
    }

    /** The class of an answer that grew too large to judge whole: unknown (it may have executed). */
    static AttemptOutcome unjudged(HeldAnswer h) {
        return AttemptOutcome.judged(h.head.status().code(), dev.idemproxy.core.retry.OutcomeClass.UNKNOWN, null,
                "larger than maxResponseBody, not judged");
    }

    /** The answer kept whole, or null. */
    HeldAnswer whole() {
        return whole;
    }

    /** Forgets the answer kept whole (given up for a retry, or replaced by a problem). */
    void forgetWhole() {
        whole = null;
    }

    /** The held answer is given up for a retry. */
    void dropHeld() {
        held.release();
        held = null;
        discarding = true;
    }

    /** The head of the answer held for its decision, or null. */
    HttpResponse heldHead() {
        return held == null ? null : held.head;
    }

    /**
     * The held answer is the call's final one: its head (its headers set by the caller) goes to
     * the client, then what came meanwhile.
     */
    Step answerHeld() {
        HeldResponse h = held;
        held = null;
        answerHead(h.head);
        boolean paused = false;
        for (HttpContent content : h.contents) {
            Step s = content(content);
            if (s == Step.LAST) {
                return s;  // nothing comes after the last piece
            }
            paused |= s == Step.PAUSE;
        }
        return h.upstreamClosed ? Step.CUT : paused ? Step.PAUSE : Step.NONE;
    }

    /**
     * The answer kept whole is the call's final one, as it came: its head (its headers set by the
     * caller) goes out; its body is the last piece ({@link #takeLast}).
     */
    void answerWhole() {
        HeldAnswer h = whole;
        whole = null;
        answerHead(h.head);
        last = (LastHttpContent) h.asContent(client.alloc(), true);
        capture.content(last.content());
    }

    Step content(HttpContent content) {
        if (whole != null && !whole.complete()) {
            return holdWhole(content);
        }
        if (held != null) {
            held.contents.add(content);
            return Step.PAUSE;
        }
        if (!answering || discarding) {
            content.release();
            return Step.NONE;
        }
        capture.content(content.content());
        if (content instanceof LastHttpContent l) {
            last = l;
            return Step.LAST;
        }
        client.content(content);
        if (!client.writable()) {
            client.flush();
            return Step.PAUSE;
        }
        return Step.NONE;
    }

    /** The answer's last piece, handed over to be written once the call's record is. */
    LastHttpContent takeLast() {
        LastHttpContent l = last;
        last = null;
        return l;
    }

    private Step holdWhole(HttpContent content) {
        HeldAnswer h = whole;
        if (!h.add(content)) {
            if (h.outcome == null) {
                // Too large to judge: what was held goes on first, then the rest as it comes, held for its decision.
                whole = null;
                held = new HeldResponse(h.head);
                held.contents.add(h.asContent(client.alloc(), false));
                held.contents.add(content);
                return Step.TOO_LARGE_TO_JUDGE;
            }
            content.release();
            whole = null;
            discarding = true;
            return Step.RECEIPT_WITHOUT_ANSWER;
        }
        return h.complete() ? Step.WHOLE_IN : Step.NONE;
    }

    /** The upstream closed the connection (the call has not ended). */
    Step upstreamClosed() {
        if (whole != null && !whole.complete()) {
            boolean judged = whole.outcome == null;
            whole = null;
            if (judged) {
                return Step.FAILED;  // cut before it could be judged: the attempt failed (reset)
            }
            discarding = true;
            return Step.RECEIPT_WITHOUT_ANSWER;
        }
        if (held != null) {
            held.upstreamClosed = true;
            return Step.NONE;
        }
        if (discarding) {
            return Step.NONE;
        }
        return answering ? Step.CUT : Step.FAILED;
    }

    /** No bytes for the route's idle timeout mid-answer (the call has not ended): FAILED (silent before it could be judged), CUT, or the receipt's. */
    Step upstreamIdle() {
        if (whole != null && !whole.complete()) {
            boolean judged = whole.outcome == null;
            whole = null;
            if (!judged) {
                discarding = true;
                return Step.RECEIPT_WITHOUT_ANSWER;
            }
            return Step.FAILED;
        }
        return answering ? Step.CUT : Step.NONE;
    }

    void readComplete() {
        if (answering) {
            client.flush();
        }
    }

    /** The final response head (its headers set by the caller) goes to the client, and its capture for the record starts. */
    private void answerHead(HttpResponse resp) {
        answering = true;
        capture = new ResponseCapture(call.route().idempotency().maxResponseBody());
        client.head(resp);
        capture.head(resp);
    }

    /** What of the captured answer is stored: the dialect's form of it, or null when it was too large. */
    StoredResponse captured() {
        return dialect.stored(call, capture.result());
    }

    /** Releases whatever is still held (the call ended another way). */
    void release() {
        if (held != null) {
            held.release();
            held = null;
        }
        whole = null;
        if (last != null) {
            last.release();
            last = null;
        }
    }
}
