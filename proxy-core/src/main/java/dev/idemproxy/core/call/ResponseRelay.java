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
 * task budget's answer from the store, or a receipt check), then streams the final answer to the
 * client while capturing it for replay, with back-pressure both ways. The answer's end goes to
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
    /** A 5xx kept whole while its receipt is checked, answered as it came if the check does not resolve; else null. */
    private HeldForReceipt heldForReceipt;

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

    /** Keeps an unknown answer whole (its body read to the end) while its receipt is checked. */
    void holdForReceipt(HttpResponse resp, AttemptOutcome outcome) {
        upstreamWantsClose = !HttpUtil.isKeepAlive(resp);
        heldForReceipt = new HeldForReceipt(resp, outcome, c.call.route().idempotency().maxResponseBody());
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
        if (heldForReceipt != null && !heldForReceipt.complete()) {
            holdForReceipt(content);
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
            OnLoop.then(c.settle(capture.result(), false), c.client.loop(), (v, err) -> {
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

    /** A piece of the 5xx kept for the receipt check; once it is all in, the check starts. */
    private void holdForReceipt(HttpContent content) {
        HeldForReceipt h = heldForReceipt;
        if (!h.add(content)) {
            dropHeldForReceipt();
            return;
        }
        if (h.complete()) {
            c.releaseConn(!upstreamWantsClose);
            c.attempts.receiptChecks.start(h.outcome);
        }
    }

    /**
     * The 5xx kept for the receipt check cannot be kept whole (larger than maxResponseBody, or the
     * upstream closed or went silent mid-body): the rest is discarded and the check goes on without
     * it, so an unresolved check answers 504 ambiguous-outcome.
     */
    private void dropHeldForReceipt() {
        AttemptOutcome outcome = heldForReceipt.outcome;
        heldForReceipt = null;
        discarding = true;
        c.releaseConn(false);
        if (!c.settled) {
            c.attempts.receiptChecks.start(outcome);
        }
    }

    boolean holdsForReceipt() {
        return heldForReceipt != null;
    }

    void forgetHeldForReceipt() {
        heldForReceipt = null;
    }

    /**
     * The upstream closed the connection. True when that is handled here (an answer held or under
     * way, or the call ended); false when no answer had come: the attempt failed.
     */
    boolean upstreamClosed() {
        if (heldForReceipt != null && !heldForReceipt.complete()) {
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
        if (heldForReceipt != null && !heldForReceipt.complete()) {
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
     * The receipt check did not resolve an upstream 5xx: the call answers that response as it came
     * and stores it for duplicates, as it would have without a receipt endpoint.
     */
    void answerHeldForReceipt(RetryDecision d) {
        HeldForReceipt h = heldForReceipt;
        heldForReceipt = null;
        answerHead(d, h.head);
        LastHttpContent last = h.last(c.client.alloc());
        capture.content(last.content());
        OnLoop.then(c.settle(capture.result(), false), c.client.loop(), (v, err) -> {
            c.client.content(last);
            c.client.flush();
        });
    }

    /** The receipt settled the call: SUCCESS with its result ({@code answer}), or FAILED ({@code problem}). */
    void fromReceipt(RetryDecision d, StoredResponse answer, Problem problem, String detail) {
        heldForReceipt = null;
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
