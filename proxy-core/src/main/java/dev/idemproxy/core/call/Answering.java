package dev.idemproxy.core.call;

import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.retry.FailureClass;
import dev.idemproxy.core.retry.OutcomeClass;
import dev.idemproxy.core.retry.RetryReason;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.retry.TaskBudgetDecision;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.util.ProxyHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.List;

/**
 * How a forwarded call's answer ends, as {@link Verdict}s: the upstream's answer streamed
 * (through the {@link AnswerRelay}), an answer kept whole, the receipt's result, a proxy-made
 * problem, or a cut. Every answer carries the call's id, its attempts and the task's budget left;
 * each verdict holds what the client gets once the call's record is written, and what a
 * duplicate gets replayed. Not thread-safe: used on the call's event loop.
 */
final class Answering {
    private final CallContext cx;
    private final AnswerRelay relay;
    /** The decision the answer under way follows. */
    private RetryDecision decision;
    private int status;

    Answering(CallContext cx, AnswerRelay relay) {
        this.cx = cx;
        this.relay = relay;
    }

    /**
     * The call took over the lapsed claim of the last of {@code priors} (which had taken over from
     * the others), any of which may have executed, and may not repeat it with no receipt endpoint
     * to ask: its outcome stays ambiguous, stored and dead-lettered, never re-executed.
     */
    Verdict takenOver(List<String> priors) {
        String who = priors.size() == 1 ? "call " + priors.get(0)
                : "calls " + String.join(", ", priors);
        return problem(RetryDecision.store(RetryReason.TAKEOVER_UNKNOWN, OutcomeClass.UNKNOWN, true, Problem.AMBIGUOUS_OUTCOME),
                Problem.AMBIGUOUS_OUTCOME, "took over the lapsed claim of " + who
                        + ", which may have executed; resolve it through the DLQ", 0, null);
    }

    /**
     * The held answer goes to the client under {@code d}, and the attempt's reading resumes; a
     * verdict when all of it had come (or it was cut).
     */
    Verdict held(RetryDecision d, Attempt attempt, TaskBudgetDecision task) {
        HttpResponse head = relay.heldHead();
        follow(d, head.status().code());
        decorate(head.headers(), attempt.number(), task);
        AnswerRelay.Step step = relay.answerHeld();
        if (step == AnswerRelay.Step.LAST) {
            attempt.releaseConn(relay.reusable());
            return last(attempt.number());
        }
        if (step == AnswerRelay.Step.CUT) {
            return cut("the upstream closed the connection mid-response", attempt.number());
        }
        attempt.read(step != AnswerRelay.Step.PAUSE);
        return null;
    }

    /** The answer kept whole is the call's final one, as it came. */
    Verdict whole(RetryDecision d, int attempts, TaskBudgetDecision task) {
        HeldAnswer h = relay.whole();
        follow(d, h.head.status().code());
        decorate(h.head.headers(), attempts, task);
        relay.answerWhole();
        return last(attempts);
    }

    /** The final answer's last piece is in: the call settles with it, and it goes to the client once recorded. */
    Verdict last(int attempts) {
        LastHttpContent last = relay.takeLast();
        return verdict(decision, status, attempts, new Verdict.Last(last), relay.captured(), false);
    }

    /** A proxy-made answer ends the call; a duplicate is told the same. */
    Verdict problem(RetryDecision d, Problem p, String detail, int attempts, TaskBudgetDecision task) {
        FullHttpResponse resp = cx.dialect().problem(cx.client().alloc(), cx.call(), p, detail, cx.identity().callId());
        follow(d, p.status());
        decorate(resp.headers(), attempts, task);
        return verdict(d, p.status(), attempts, new Verdict.Whole(resp), cx.dialect().storedProblem(cx.call(), p, detail,
                cx.identity().callId()), false);
    }

    /**
     * A stop decided after an attempt ({@code t}): the held answer goes as it came, an answer kept
     * whole goes as it came unless the decision answers a problem, a failure answers its problem.
     */
    Verdict stop(Decisions.Taken t, Attempt attempt, TaskBudgetDecision task) {
        RetryDecision d = t.decision();
        switch (t.then()) {
            case HEAD:
                return held(d, attempt, task);
            case FAILURE:
                return problem(d, d.answerProblem().orElse(t.attempt().outcome().failure() == FailureClass.CONNECT_FAILURE
                        ? Problem.UPSTREAM_UNREACHABLE : Problem.UPSTREAM_RESET), t.detail(), attempt.number(), task);
            default:  // WHOLE, AFTER_RECEIPT
                if (relay.whole() != null && d.answerProblem().isEmpty()) {
                    return whole(d, attempt.number(), task);
                }
                relay.forgetWhole();
                return problem(d, d.answerProblem().orElse(Problem.AMBIGUOUS_OUTCOME), t.detail(), attempt.number(), task);
        }
    }

    /** The receipt check ended the call: the answer kept whole as it came, the receipt's result, or a problem. */
    Verdict receipt(ReceiptCheck.Step step, int attempts, TaskBudgetDecision task) {
        if (step instanceof ReceiptCheck.AnswerKept k) {
            return whole(k.decision(), attempts, task);
        }
        relay.forgetWhole();
        if (step instanceof ReceiptCheck.Answer a) {
            return receipt(a.decision(), a.answer(), attempts);
        }
        ReceiptCheck.Fail f = (ReceiptCheck.Fail) step;
        return problem(f.decision(), f.problem(), f.detail(), attempts, task);
    }

    /** The receipt settled the call: its result is the answer, as the call's own (not marked replayed). */
    private Verdict receipt(RetryDecision d, StoredResponse answer, int attempts) {
        follow(d, answer.status());
        FullHttpResponse resp = Replays.response(cx.client().alloc(), answer, cx.identity().callId(), attempts, false);
        resp.headers().remove(CallIdentity.IDEMPOTENT_REPLAYED);
        return verdict(d, answer.status(), attempts, new Verdict.Whole(resp), answer, false);
    }

    /** The answer under way was cut: the client's connection goes, duplicates get 504 ambiguous-outcome. */
    Verdict cut(String detail, int attempts) {
        Verdict.Cut closed = new Verdict.Cut(cx.client().abort());
        Problem p = Problem.AMBIGUOUS_OUTCOME;
        return verdict(decision, p.status(), attempts, closed,
                cx.dialect().storedProblem(cx.call(), p, detail + "; the call may have executed", cx.identity().callId()), true);
    }

    private void follow(RetryDecision d, int finalStatus) {
        decision = d;
        status = finalStatus;
    }

    private Verdict verdict(RetryDecision d, int finalStatus, int attempts, Verdict.Answer answer, StoredResponse stored,
            boolean truncated) {
        relay.release();
        return new Verdict(new CallSettlement(d, attempts, finalStatus, stored, truncated, null), answer);
    }

    /** The headers every answer of the call carries: X-Call-Id, X-Attempts, and the task's budget left. */
    private void decorate(HttpHeaders h, int attempts, TaskBudgetDecision task) {
        cx.identity().decorate(h, attempts);
        if (task != null) {
            h.set(CallIdentity.X_RETRY_BUDGET_REMAINING, ProxyHeaders.number(task.remaining()));
        }
    }
}
