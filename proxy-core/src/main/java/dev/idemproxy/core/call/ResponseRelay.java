package dev.idemproxy.core.call;

import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.store.StoredResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * The response leg of a {@link ProtectedCall}: holds an answer while its fate is decided (the
 * task budget's answer from the store; the whole answer while its dialect judges it, or while a
 * receipt check runs: {@link HeldAnswer}), then streams the final answer to the client while
 * capturing it for replay, with back-pressure both ways. What of a captured answer is stored is
 * its dialect's to say ({@link CallDialect#stored}). The answer's end goes to
 * the client only once the call's record is written, so a caller that saw a whole response can
 * never find that outcome missing after a crash; proxy-made answers (problems, a receipt's
 * result) wait for their record the same way.
 *
 * <p>Ownership: held contents are owned here until streamed on or released; streamed contents
 * pass to the {@link ClientSide}. Not thread-safe: runs on the client's event loop.
 */
final class ResponseRelay {
    private final ProtectedCall c;
    /** True once the final answer's head has gone to the client: the call is committed. */
    private boolean answering;
    /** The attempt's answer was given up for a retry: its remaining content is dropped. */
    private boolean discarding;
    private boolean upstreamWantsClose;
    private ResponseCapture capture;
    /** A response head waiting for its retry decision (the task's token); null otherwise. */
    private HeldResponse held;
    /**
     * An answer kept whole: to be judged by its dialect once all of it is in, or (a 5xx) while its
     * receipt is checked, answered as it came if the check does not resolve; else null.
     */
    private HeldAnswer whole;

    ResponseRelay(ProtectedCall c) {
        this.c = c;
    }

    boolean answering() {
        return answering;
    }

    void newAttempt() {
        answering = false;
        discarding = false;
    }

    /**
     * Keeps an answer whole (its body read to the end): {@code outcome} null to have its dialect
     * judge it once all of it is in; else an unknown answer whose receipt is checked once it is in.
     */
    void holdWhole(HttpResponse resp, AttemptOutcome outcome) {
        upstreamWantsClose = !HttpUtil.isKeepAlive(resp);
        whole = new HeldAnswer(resp, outcome, c.call.route().idempotency().maxResponseBody());
    }

    /** Keeps an answer's head (and what content comes meanwhile) until its retry decision. */
    void holdForDecision(HttpResponse resp) {
        upstreamWantsClose = !HttpUtil.isKeepAlive(resp);
        held = new HeldResponse(resp);
    }

    /** The held answer is given up for a retry. */
    void dropHeld() {
        HeldResponse h = held;
        held = null;
        h.release();
        discarding = true;
    }

    /** The held answer is the call's final one: it goes to the client, with what came meanwhile. */
    void answerHeld(RetryDecision d) {
        HeldResponse h = held;
        held = null;
        answerHead(d, h.head);
        c.readUpstream(true);
        for (HttpContent content : h.contents) {
            content(content);
        }
        if (h.upstreamClosed && !c.settled) {
            truncated("the upstream closed the connection mid-response");
        }
    }

    void content(HttpContent content) {
        if (whole != null && !whole.complete()) {
            holdWhole(content);
            return;
        }
        if (held != null) {
            held.contents.add(content);
            c.readUpstream(false);
            return;
        }
        if (c.settled || discarding || !answering) {
            content.release();
            return;
        }
        capture.content(content.content());
        if (content instanceof LastHttpContent) {
            c.releaseConn(!upstreamWantsClose);
            OnLoop.then(c.settle(captured(), false), c.client.loop(), (v, err) -> {
                c.client.content(content);
                c.client.flush();
            });
            return;
        }
        c.client.content(content);
        if (!c.client.writable() && c.conn != null) {
            c.readUpstream(false);
            c.client.flush();
        }
    }

    /**
     * A piece of an answer kept whole; once it is all in, it is judged (or its receipt checked).
     * One too large to keep whole: an answer for a receipt check is given up (the check goes on
     * without it); one to be judged is passed on as it comes, unjudged ({@link #tooLargeToJudge}).
     */
    private void holdWhole(HttpContent content) {
        HeldAnswer h = whole;
        if (!h.add(content)) {
            if (h.outcome == null) {
                tooLargeToJudge(h, content);
            } else {
                content.release();
                dropHeldForReceipt();
            }
            return;
        }
        if (h.complete()) {
            c.releaseConn(!upstreamWantsClose);
            c.attempts.wholeAnswer(h);
        }
    }

    /**
     * An answer to be judged whole grew past {@code maxResponseBody}: it cannot be read, so it is
     * unknown, and it goes on to the client as it comes (what was held first), its response
     * counted as started: it is never retried, and its record is not retained.
     */
    private void tooLargeToJudge(HeldAnswer h, HttpContent overflowing) {
        whole = null;
        held = new HeldResponse(h.head);
        held.contents.add(h.asContent(c.client.alloc(), false));
        held.contents.add(overflowing);
        c.readUpstream(false);
        c.attempts.tooLargeToJudge(h.head);
    }

    /**
     * The 5xx kept for the receipt check cannot be kept whole (larger than maxResponseBody, or the
     * upstream closed or went silent mid-body): the rest is discarded and the check goes on without
     * it, so an unresolved check answers 504 ambiguous-outcome.
     */
    private void dropHeldForReceipt() {
        AttemptOutcome outcome = whole.outcome;
        whole = null;
        discarding = true;
        c.releaseConn(false);
        if (!c.settled) {
            c.attempts.receiptChecks.start(outcome);
        }
    }

    boolean holdsWhole() {
        return whole != null;
    }

    void forgetWhole() {
        whole = null;
    }

    /**
     * The upstream closed the connection. True when that is handled here (an answer held or under
     * way, or the call ended); false when no answer had come: the attempt failed.
     */
    boolean upstreamClosed() {
        if (whole != null && !whole.complete()) {
            if (whole.outcome == null) {
                whole = null;  // cut before it could be judged: the attempt failed (reset)
                return false;
            }
            dropHeldForReceipt();
            return true;
        }
        if (held != null) {
            held.upstreamClosed = true;
            return true;
        }
        if (c.settled || discarding) {
            return true;
        }
        if (answering) {
            truncated("the upstream closed the connection mid-response");
            return true;
        }
        return false;
    }

    /** No bytes for the route's idle timeout: an answer under way is cut. */
    void upstreamIdle() {
        if (whole != null && !whole.complete()) {
            if (whole.outcome == null) {
                whole = null;  // silent before it could be judged: the attempt failed (idle-timeout)
                c.releaseConn(false);
                c.attempts.failedMidAnswer(dev.idemproxy.core.retry.FailureClass.IDLE_TIMEOUT,
                        "the upstream went silent mid-answer for " + c.call.route().timeouts().idle());
                return;
            }
            dropHeldForReceipt();
            return;
        }
        if (!c.settled && answering) {
            c.releaseConn(false);
            truncated("the upstream went silent mid-response for " + c.call.route().timeouts().idle());
        }
    }

    void clientWritable() {
        if (c.conn != null && answering) {
            c.readUpstream(true);
        }
    }

    void readComplete() {
        if (answering) {
            c.client.flush();
        }
    }

    /** The final decision's response head goes to the client, and its capture for the record starts. */
    private void answerHead(RetryDecision d, HttpResponse resp) {
        c.finalDecision = d;
        c.finalStatus = resp.status().code();
        answering = true;
        capture = new ResponseCapture(c.call.route().idempotency().maxResponseBody());
        c.decorate(resp.headers());
        c.client.head(resp);
        capture.head(resp);
    }

    /**
     * The answer kept whole is the call's final one, as it came: a judged answer the decision
     * keeps, or an upstream 5xx the receipt check did not resolve (as it would have been answered
     * without a receipt endpoint). It is stored for duplicates as its dialect says.
     */
    void answerWhole(RetryDecision d) {
        HeldAnswer h = whole;
        whole = null;
        answerHead(d, h.head);
        LastHttpContent last = (LastHttpContent) h.asContent(c.client.alloc(), true);
        capture.content(last.content());
        OnLoop.then(c.settle(captured(), false), c.client.loop(), (v, err) -> {
            c.client.content(last);
            c.client.flush();
        });
    }

    /** What of the captured answer is stored: the dialect's form of it, or null when it was too large. */
    private StoredResponse captured() {
        return c.call.dialect().stored(c.call, capture.result());
    }

    /** The receipt settled the call: SUCCESS with its result ({@code answer}), or FAILED ({@code problem}). */
    void fromReceipt(RetryDecision d, StoredResponse answer, Problem problem, String detail) {
        whole = null;
        if (problem != null) {
            problem(d, problem, detail);
            return;
        }
        c.finalDecision = d;
        c.finalStatus = answer.status();
        int n = c.attempt;
        OnLoop.then(c.settle(answer, false), c.client.loop(), (v, err) -> c.client.replay(answer, c.identity.callId(), n));
    }

    /** Ends the call with a proxy-made answer; a duplicate is told the same. */
    void problem(RetryDecision d, Problem p, String detail) {
        c.finalDecision = d;
        c.finalStatus = p.status();
        FullHttpResponse resp = c.call.dialect().problem(c.client.alloc(), c.call, p, detail, c.identity.callId());
        c.decorate(resp.headers());
        // As for a forwarded response's end: the answer goes to the client only once its record is
        // written, so a caller told (say) 504 ambiguous-outcome never finds that record missing
        // after a crash, and a duplicate is never a fresh call that runs it again.
        OnLoop.then(c.settle(problemResponse(p, detail), false), c.client.loop(), (v, err) -> c.client.problem(resp));
    }

    /** The answer under way was cut: the client's connection goes, duplicates get 504 ambiguous-outcome. */
    private void truncated(String detail) {
        c.client.abort();
        c.settle(problemResponse(Problem.AMBIGUOUS_OUTCOME, detail + "; the call may have executed"), true);
    }

    private StoredResponse problemResponse(Problem p, String detail) {
        return c.call.dialect().storedProblem(c.call, p, detail, c.identity.callId());
    }
}
