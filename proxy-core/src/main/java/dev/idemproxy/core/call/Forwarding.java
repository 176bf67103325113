package dev.idemproxy.core.call;

import dev.idemproxy.core.call.CallEvent.Timer;
import dev.idemproxy.core.call.CallEvent.TimerKind;
import dev.idemproxy.core.call.Decisions.Taken;
import dev.idemproxy.core.call.Decisions.Then;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.FailureClass;
import dev.idemproxy.core.retry.FinishedAttempt;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.upstream.MalformedResponseException;
import io.netty.handler.codec.http.HttpResponse;
import java.util.List;

/**
 * The forwarding of a {@link ProtectedCall}, the sub-machine of its {@code FORWARDING} phase
 * ({@link ForwardingPhase}): each attempt sends the buffered request ({@link Attempt}); its answer
 * is judged through the call's dialect, {@link Decisions} says what follows, a receipt is checked
 * before an unsafe retry ({@link ReceiptCheck}), and the final answer streams through the
 * {@link AnswerRelay}. Once the call's end is decided it returns the {@link Verdict}
 * ({@link Answering}) to the call; until then null. It computes no delay and classifies nothing
 * itself. Every event comes from the call's door, on its loop. Not thread-safe.
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

    /** Starts the attempts; a call that took over lapsed claims ({@code priors}) and may not repeat them asks their receipts first. */
    Verdict start(List<String> priors) {
        if (priors.isEmpty() || cx.repeatHarmless()) {
            return firstAttempt();
        }
        if (cx.call().route().receipt() != null) {
            return check(ReceiptCheck.ofPriors(priors));
        }
        return end(answering.takenOver(priors));
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
            return end(answering.problem(null, Problem.DEADLINE_EXCEEDED, "the deadline expired before attempt "
                    + (attempt.number() + 1), attempt.number(), decisions.task()));
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
        } else if (e instanceof CallEvent.SendFailed f && !relay.answering() && attempt.sendFailed(f)) {
            return failed(FailureClass.RESET_BEFORE_REQUEST, MalformedResponseException.describe(f.cause()), true);
        } else if (e instanceof CallEvent.UpstreamClosed u) {
            return lost(FailureClass.RESET, u.cause());
        } else if (e == CallEvent.Signal.UPSTREAM_IDLE) {
            return lost(FailureClass.IDLE_TIMEOUT, null);
        } else if (e instanceof Timer t && t.attempt() == attempt.number()) {
            return timer(t.kind());
        } else if (e instanceof CallEvent.BudgetRead b && phase == ForwardingPhase.READING_BUDGET) {
            decisions.budgetRead(b.budget());
            return nextAttempt();
        } else if (e instanceof CallEvent.TokenTaken t && phase == ForwardingPhase.TAKING_TOKEN) {
            return go(decisions.tokenTaken(t.budget()));
        } else if (e instanceof CallEvent.ReceiptAnswered r && phase == ForwardingPhase.CHECKING_RECEIPT) {
            cx.watch().receipt(attempt.number(), r.answer());
            return receipt(check.answered(r.answer(), cx));
        }
        return null;
    }

    private Verdict connected(CallEvent.Connected c) {
        Attempt.Connect connect = attempt.connected(c);
        if (connect == Attempt.Connect.SENT) {
            move(ForwardingPhase.AWAITING_HEAD);
        }
        return connect != Attempt.Connect.FAILED ? null
                : failed(FailureClass.CONNECT_FAILURE, MalformedResponseException.describe(c.failure()), true);
    }

    private Verdict timer(TimerKind kind) {
        if (kind == TimerKind.BACKOFF && phase == ForwardingPhase.BACKING_OFF) {
            return nextAttempt();
        }
        if (kind == TimerKind.RECEIPT_POLL && phase == ForwardingPhase.CHECKING_RECEIPT) {
            return receipt(check.query(cx));
        }
        if (kind != TimerKind.ATTEMPT || (phase != ForwardingPhase.CONNECTING && phase != ForwardingPhase.AWAITING_HEAD)) {
            return null;
        }
        FailureClass f = attempt.timedOut();
        return failed(f, f == FailureClass.READ_TIMEOUT ? "no response head within " + attempt.millis() + " ms"
                : "no connection within the attempt's time", true);
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
        attempt.ended(answered);
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
            case TOO_LARGE_TO_JUDGE:  // unknown, and under way to the client: never retried, its record not retained
                attempt.read(false);
                AttemptOutcome unread = AnswerRelay.unjudged(kept);
                attempt.ended(unread);
                return decide(FinishedAttempt.started(attempt.number(), unread), Then.HEAD, null);
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
            attempt.ended(outcome);
        }
        if (ReceiptCheck.applies(cx.call().route(), outcome, cx.repeatHarmless())) {
            return check(ReceiptCheck.keepingAnswer(outcome));  // answered as it came if the check does not resolve
        }
        return decide(FinishedAttempt.of(attempt.number(), outcome), Then.WHOLE,
                outcome + ": the upstream's answer held no response to judge the call by");
    }

    /** The upstream closed the connection ({@code RESET}), or went silent ({@code IDLE_TIMEOUT}), mid-attempt. */
    private Verdict lost(FailureClass how, Throwable cause) {
        HeldAnswer kept = relay.whole();
        boolean silent = how == FailureClass.IDLE_TIMEOUT;
        AnswerRelay.Step step = silent ? relay.upstreamIdle() : relay.upstreamClosed();
        if (!silent) {
            attempt.lost();
        } else if (step != AnswerRelay.Step.NONE) {
            attempt.releaseConn(false);
        }
        String idle = " for " + cx.call().route().timeouts().idle();
        switch (step) {
            case FAILED:  // a closed attempt is counted under reset, unless it was counted at its head
                return silent ? failed(how, "the upstream went silent mid-answer" + idle, false) : failed(how, cause == null
                        ? "connection closed before a response" : MalformedResponseException.describe(cause), !attempt.headCame());
            case CUT:
                return end(answering.cut(silent ? "the upstream went silent mid-response" + idle
                        : "the upstream closed the connection mid-response", attempt.number()));
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
        attempt.ended(outcome);
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
            attempt.retryAfter(d);
            return null;
        }
        if (t.then() == Then.HEAD) {
            move(ForwardingPhase.STREAMING);
        }
        return end(answering.stop(t, attempt, decisions.task()));
    }

    private Verdict check(ReceiptCheck c) {
        move(ForwardingPhase.CHECKING_RECEIPT);
        check = c;
        return receipt(c.query(cx));
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
            return check.aboutPriors() ? firstAttempt()
                    : decide(FinishedAttempt.notFound(attempt.number(), check.outcome), Then.AFTER_RECEIPT, n.detail());
        }
        return end(answering.receipt(step, attempt.number(), decisions.task()));
    }

    /** The call's end is decided (or, for null, not yet). */
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
