package dev.idemproxy.core.call;

import dev.idemproxy.core.call.CallEvent.Timer;
import dev.idemproxy.core.call.CallEvent.TimerKind;
import dev.idemproxy.core.call.Decisions.Taken;
import dev.idemproxy.core.call.Decisions.Then;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.FailureClass;
import dev.idemproxy.core.retry.FinishedAttempt;
import dev.idemproxy.core.retry.OutcomeClass;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.retry.RetryReason;
import dev.idemproxy.core.upstream.MalformedResponseException;
import io.netty.handler.codec.http.HttpResponse;

/**
 * The forwarding of a {@link ProtectedCall}: the sub-machine of its {@code FORWARDING} phase. Each
 * attempt sends the buffered request ({@link Attempt}); its answer is judged through the call's
 * dialect, {@link Decisions} says what follows (retry after a delay, or stop and how), a receipt
 * is checked before an unsafe retry ({@link ReceiptCheck}), and the final answer streams through
 * the {@link AnswerRelay}. When the call's end is decided it returns a {@link Verdict}
 * ({@link Answering}) to the call, which records it and only then lets the answer's end go;
 * until then it returns null. It computes no delay and classifies nothing itself.
 *
 * <p>Every event reaches it from the call's door, on the call's loop. Not thread-safe.
 */
final class Forwarding {
    private final CallContext cx;
    private final AnswerRelay relay;
    private final Attempt attempt;
    private final Decisions decisions;
    private final Answering answering;
    private ForwardingPhase phase = ForwardingPhase.STARTING;
    private ReceiptCheck check;

    Forwarding(CallContext cx) {
        this.cx = cx;
        this.relay = new AnswerRelay(cx.client(), cx.call());
        this.attempt = new Attempt(cx);
        this.decisions = new Decisions(cx);
        this.answering = new Answering(cx, relay);
    }

    ForwardingPhase phase() {
        return phase;
    }

    /**
     * Starts: the first attempt (after reading the task's budget), or, for a call that took over the
     * lapsed claim of {@code prior} (which may have executed) and may not repeat it, a receipt check
     * of that call, else an ambiguous end: stored, dead-lettered, never re-executed.
     */
    Verdict start(String prior) {
        if (prior == null || cx.repeatHarmless()) {
            return firstAttempt();
        }
        if (cx.call().route().receipt() != null) {
            return check(ReceiptCheck.ofPrior(prior));
        }
        return end(answering.problem(RetryDecision.store(RetryReason.TAKEOVER_UNKNOWN, OutcomeClass.UNKNOWN, true,
                Problem.AMBIGUOUS_OUTCOME), Problem.AMBIGUOUS_OUTCOME, "took over the lapsed claim of call " + prior
                + ", which may have executed; resolve it through the DLQ", attempt.number(), null));
    }

    private Verdict firstAttempt() {
        if (cx.identity().taskId() == null) {
            return nextAttempt();
        }
        move(ForwardingPhase.READING_BUDGET);  // X-Retry-Budget-Remaining and the first decisions start from it
        cx.door().when(cx.services().taskBudgets().peek(cx.identity().taskId()), (b, never) -> new CallEvent.BudgetRead(b));
        return null;
    }

    private Verdict nextAttempt() {
        if (cx.deadline().expired()) {
            return problem(null, Problem.DEADLINE_EXCEEDED, "the deadline expired before attempt " + (attempt.number() + 1));
        }
        relay.newAttempt();
        move(ForwardingPhase.CONNECTING);
        attempt.next();
        return null;
    }

    /** An event of the call's while it forwards; the verdict once the call's end is decided, else null. */
    Verdict on(CallEvent e) {
        if (phase == ForwardingPhase.SETTLED) {
            CallEvent.drop(e);
            return null;
        }
        if (e instanceof CallEvent.Content c) {
            return content(c);
        } else if (e instanceof CallEvent.Head h) {
            return head(h.head());
        } else if (e == CallEvent.Signal.READ_COMPLETE) {
            relay.readComplete();
        } else if (e == CallEvent.Signal.CLIENT_WRITABLE && relay.answering()) {
            attempt.read(true);
        } else if (e instanceof CallEvent.Connected c) {
            return connected(c);
        } else if (e instanceof CallEvent.SendFailed f) {
            if (f.attempt() == attempt.number() && !relay.answering() && attempt.conn() != null) {
                attempt.releaseConn(false);
                return failed(FailureClass.RESET_BEFORE_REQUEST, MalformedResponseException.describe(f.cause()), true);
            }
        } else if (e instanceof CallEvent.UpstreamClosed u) {
            return upstreamClosed(u.cause());
        } else if (e == CallEvent.Signal.UPSTREAM_IDLE) {
            return upstreamIdle();
        } else if (e instanceof Timer t && t.attempt() == attempt.number()) {
            return timer(t.kind());
        } else if (e instanceof CallEvent.BudgetRead b && phase == ForwardingPhase.READING_BUDGET) {
            decisions.budgetRead(b.budget());
            return nextAttempt();
        } else if (e instanceof CallEvent.TokenTaken t && phase == ForwardingPhase.TAKING_TOKEN) {
            return go(decisions.tokenTaken(t.budget()));
        } else if (e instanceof CallEvent.ReceiptAnswered r && phase == ForwardingPhase.CHECKING_RECEIPT) {
            cx.watch().receipt(attempt.number(), r.answer());
            return receipt(check.answered(r.answer(), relay.whole() != null, cx.call().route(), cx.deadline(),
                    cx.services().random(), cx.identity().callId()));
        }
        return null;
    }

    private Verdict connected(CallEvent.Connected c) {
        switch (attempt.connected(c)) {
            case FAILED:
                return failed(FailureClass.CONNECT_FAILURE, MalformedResponseException.describe(c.failure()), true);
            case SENT:
                move(ForwardingPhase.AWAITING_HEAD);
                return null;
            default:
                return null;
        }
    }

    private Verdict timer(TimerKind kind) {
        if (kind == TimerKind.BACKOFF && phase == ForwardingPhase.BACKING_OFF) {
            return nextAttempt();
        }
        if (kind == TimerKind.RECEIPT_POLL && phase == ForwardingPhase.CHECKING_RECEIPT) {
            return receipt(check.query(cx, relay.whole() != null));
        }
        if (kind != TimerKind.ATTEMPT || (phase != ForwardingPhase.CONNECTING && phase != ForwardingPhase.AWAITING_HEAD)) {
            return null;
        }
        boolean sent = attempt.conn() != null;
        attempt.releaseConn(false);
        return sent ? failed(FailureClass.READ_TIMEOUT, "no response head within " + attempt.millis() + " ms", true)
                : failed(FailureClass.CONNECT_FAILURE, "no connection within the attempt's time", true);
    }

    private Verdict head(HttpResponse resp) {
        if (phase != ForwardingPhase.AWAITING_HEAD || attempt.conn() == null) {
            return null;
        }
        attempt.answered(resp.status().code());
        if (cx.dialect().holdsAnswer(cx.call(), resp)) {
            move(ForwardingPhase.HOLDING);
            relay.holdWhole(resp, null);  // its body read to the end, then judged
            return null;
        }
        AttemptOutcome answered = cx.dialect().classify(cx.call(), resp);
        cx.watch().tryEnded(attempt.number(), answered, cx.services().ticker().nanos());
        if (ReceiptCheck.applies(cx.call().route(), answered, cx.repeatHarmless())) {
            move(ForwardingPhase.HOLDING);
            relay.holdWhole(resp, answered);  // its body read to the end, then the check starts
            return null;
        }
        relay.holdForDecision(resp);
        return decide(FinishedAttempt.of(attempt.number(), answered), Then.HEAD, null);
    }

    private Verdict content(CallEvent.Content c) {
        HeldAnswer kept = relay.whole();
        switch (relay.content(c.content())) {
            case PAUSE:
                attempt.read(false);
                return null;
            case WHOLE_IN:
                attempt.releaseConn(relay.reusable());
                return judgeWhole(kept);
            case TOO_LARGE_TO_JUDGE:
                // It cannot be read, so it is unknown; it goes on to the client as it comes,
                // counted as started: it is never retried, and its record is not retained.
                attempt.read(false);
                AttemptOutcome unread = AttemptOutcome.judged(kept.head.status().code(), OutcomeClass.UNKNOWN, null,
                        "larger than maxResponseBody, not judged");
                cx.watch().tryEnded(attempt.number(), unread, cx.services().ticker().nanos());
                return decide(new FinishedAttempt(attempt.number(), unread, true, false), Then.HEAD, null);
            case RECEIPT_WITHOUT_ANSWER:
                attempt.releaseConn(false);
                return check(ReceiptCheck.of(kept.outcome));
            case LAST:
                attempt.releaseConn(relay.reusable());
                return end(answering.last(attempt.number()));
            default:
                return null;
        }
    }

    /** An answer held whole is all in: judged by its dialect (unless classed at its head), then checked or decided on. */
    private Verdict judgeWhole(HeldAnswer h) {
        AttemptOutcome outcome = h.outcome;
        if (outcome == null) {
            outcome = cx.dialect().classifyHeld(cx.call(), h.head, h.body());
            cx.watch().tryEnded(attempt.number(), outcome, cx.services().ticker().nanos());
        }
        if (ReceiptCheck.applies(cx.call().route(), outcome, cx.repeatHarmless())) {
            return check(ReceiptCheck.of(outcome));  // the answer stays held: answered as it came if the check does not resolve
        }
        return decide(FinishedAttempt.of(attempt.number(), outcome), Then.WHOLE,
                outcome + ": the upstream's answer held no response to judge the call by");
    }

    private Verdict upstreamClosed(Throwable cause) {
        HeldAnswer kept = relay.whole();
        attempt.lost();
        switch (relay.upstreamClosed()) {
            case FAILED:
                String why = cause == null ? "connection closed before a response" : MalformedResponseException.describe(cause);
                return failed(FailureClass.RESET, why, !attempt.headCame());  // counted at its head if that came
            case CUT:
                return end(answering.cut("the upstream closed the connection mid-response", attempt.number()));
            case RECEIPT_WITHOUT_ANSWER:
                return check(ReceiptCheck.of(kept.outcome));
            default:
                return null;
        }
    }

    private Verdict upstreamIdle() {
        HeldAnswer kept = relay.whole();
        AnswerRelay.Step step = relay.upstreamIdle();
        if (step != AnswerRelay.Step.NONE) {
            attempt.releaseConn(false);
        }
        String silent = "the upstream went silent mid-answer for " + cx.call().route().timeouts().idle();
        switch (step) {
            case FAILED:
                return failed(FailureClass.IDLE_TIMEOUT, silent, false);
            case CUT:
                return end(answering.cut(silent, attempt.number()));
            case RECEIPT_WITHOUT_ANSWER:
                return check(ReceiptCheck.of(kept.outcome));
            default:
                return null;
        }
    }

    /** @param record count the attempt under the failure (false: it was counted at its answer's head) */
    private Verdict failed(FailureClass failure, String detail, boolean record) {
        attempt.failed(record ? failure.spelling() : null);
        AttemptOutcome outcome = AttemptOutcome.failed(failure);
        cx.watch().tryEnded(attempt.number(), outcome, cx.services().ticker().nanos());
        if (ReceiptCheck.applies(cx.call().route(), outcome, cx.repeatHarmless())) {
            return check(ReceiptCheck.of(outcome));
        }
        return decide(FinishedAttempt.of(attempt.number(), outcome), Then.FAILURE, failure.spelling() + ": " + detail);
    }

    private Verdict decide(FinishedAttempt finished, Then then, String detail) {
        Taken t = decisions.decide(finished, then, detail);
        if (t == null) {
            move(ForwardingPhase.TAKING_TOKEN);
            return null;
        }
        return go(t);
    }

    /** Acts on a decision: retry after its delay, or end the call as what it is about says. */
    private Verdict go(Taken t) {
        RetryDecision d = t.decision();
        cx.watch().decided(attempt.number(), d);
        if (d.isRetry()) {
            if (t.then() == Then.HEAD) {
                relay.dropHeld();
                attempt.releaseConn(false);
            } else {
                relay.forgetWhole();
            }
            move(ForwardingPhase.BACKING_OFF);
            cx.services().log().retry(cx.call().route().name(), cx.identity().callId(), cx.identity().bizId(), attempt.number(),
                    d.spelling(), d.delay().toMillis());
            cx.door().after(d.delay().toNanos(), new Timer(TimerKind.BACKOFF, attempt.number()));
            return null;
        }
        switch (t.then()) {
            case HEAD:
                move(ForwardingPhase.STREAMING);
                return end(answering.held(d, attempt, decisions.task()));
            case FAILURE:
                return problem(d, d.answerProblem().orElse(t.attempt().outcome().failure() == FailureClass.CONNECT_FAILURE
                        ? Problem.UPSTREAM_UNREACHABLE : Problem.UPSTREAM_RESET), t.detail());
            default:  // WHOLE, AFTER_RECEIPT: the answer held whole as it came, unless the decision answers a problem
                if (relay.whole() != null && d.answerProblem().isEmpty()) {
                    return end(answering.whole(d, attempt.number(), decisions.task()));
                }
                relay.forgetWhole();
                return problem(d, d.answerProblem().orElse(Problem.AMBIGUOUS_OUTCOME), t.detail());
        }
    }

    private Verdict check(ReceiptCheck c) {
        move(ForwardingPhase.CHECKING_RECEIPT);
        check = c;
        return receipt(c.query(cx, relay.whole() != null));
    }

    private Verdict receipt(ReceiptCheck.Step step) {
        if (step == null) {
            return null;  // asked: the answer comes back through the door
        }
        if (step instanceof ReceiptCheck.Poll p) {
            cx.door().after(p.pause().toNanos(), new Timer(TimerKind.RECEIPT_POLL, attempt.number()));
            return null;
        }
        if (step instanceof ReceiptCheck.NotFound n) {
            return check.prior != null ? firstAttempt()
                    : decide(new FinishedAttempt(attempt.number(), check.outcome, false, true), Then.AFTER_RECEIPT, n.detail());
        }
        if (step instanceof ReceiptCheck.AnswerKept k) {
            return end(answering.whole(k.decision(), attempt.number(), decisions.task()));
        }
        relay.forgetWhole();
        if (step instanceof ReceiptCheck.Answer a) {
            return end(answering.receipt(a.decision(), a.answer(), attempt.number()));
        }
        ReceiptCheck.Fail f = (ReceiptCheck.Fail) step;
        return problem(f.decision(), f.problem(), f.detail());
    }

    private Verdict problem(RetryDecision d, Problem p, String detail) {
        return end(answering.problem(d, p, detail, attempt.number(), decisions.task()));
    }

    /** The call's end is decided (or, for null, not yet): nothing more is timed here. */
    private Verdict end(Verdict v) {
        if (v != null) {
            move(ForwardingPhase.SETTLED);
            attempt.stopTimer();
        }
        return v;
    }

    private void move(ForwardingPhase next) {
        if (next == phase && next == ForwardingPhase.CHECKING_RECEIPT) {
            return;  // a poll
        }
        if (!phase.canMoveTo(next)) {
            throw new IllegalStateException("call " + cx.identity().callId() + ": forwarding " + phase + " -> " + next
                    + " (expected: one of " + phase.next() + ")");
        }
        cx.watch().forwarding(phase, next);
        phase = next;
    }
}
