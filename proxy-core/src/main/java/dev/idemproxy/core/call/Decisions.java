package dev.idemproxy.core.call;

import dev.idemproxy.core.retry.FinishedAttempt;
import dev.idemproxy.core.retry.RetryBudgets;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.retry.TaskBudgetDecision;

/**
 * The retry decisions of one forwarded call, with the task's budget as last seen: each asks
 * {@link dev.idemproxy.core.retry.RetryRules} (pure). A RETRY of a call that names a task then
 * takes the task's token in the store, asynchronously ({@link CallEvent.TokenTaken}), and if
 * another proxy took the last one meanwhile the decision is taken again with the task budget
 * spent (a STOP with {@code budget_task}). Not thread-safe: used on the call's event loop.
 */
final class Decisions {
    /** What a decision goes on with once it is taken. */
    enum Then {
        /** An answer's head, held for its decision. */
        HEAD,
        /** An answer held whole and judged. */
        WHOLE,
        /** A failed attempt (no answer). */
        FAILURE,
        /** An unknown outcome whose receipt said NOT_FOUND. */
        AFTER_RECEIPT
    }

    /** A decision taken, with the attempt it is about and what it goes on with. */
    record Taken(RetryDecision decision, FinishedAttempt attempt, Then then, String detail) {}

    private final CallContext cx;
    /** The task's budget as last seen; null when the call names no task or the store did not answer. */
    private TaskBudgetDecision task;
    /** A decision waiting for the task's token; null when none. */
    private Taken pending;

    Decisions(CallContext cx) {
        this.cx = cx;
    }

    /** The task's budget as read before the first attempt (null: not known). */
    void budgetRead(TaskBudgetDecision budget) {
        task = budget;
    }

    /** The task's budget as last seen, for {@code X-Retry-Budget-Remaining}; null when none is known. */
    TaskBudgetDecision task() {
        return task;
    }

    /** The decision after {@code finished}; null while the task's token is being taken (then {@link #tokenTaken}). */
    Taken decide(FinishedAttempt finished, Then then, String detail) {
        Taken t = new Taken(decideWith(finished, task == null || task.allowed()), finished, then, detail);
        if (!t.decision().isRetry() || cx.identity().taskId() == null) {
            return t;
        }
        pending = t;
        cx.door().when(cx.services().taskBudgets().tryAcquire(cx.identity().taskId()), (b, never) -> new CallEvent.TokenTaken(b));
        return null;
    }

    /** The store's answer to taking the token: the pending decision, or a stop when the budget was spent. */
    Taken tokenTaken(TaskBudgetDecision taken) {
        Taken t = pending;
        pending = null;
        if (t == null || taken == null) {  // null: the store did not answer: go on (fail open), nothing known
            return t;
        }
        task = taken.allowed() ? taken.charged() : taken;
        return taken.allowed() ? t : new Taken(decideWith(t.attempt(), false), t.attempt(), t.then(), t.detail());
    }

    private RetryDecision decideWith(FinishedAttempt finished, boolean taskAllows) {
        return cx.services().rules().decide(cx.call().route().retry(), cx.repeatHarmless(), finished, cx.deadline(),
                RetryBudgets.of(taskAllows, () -> cx.services().routeBudget(cx.call().route()).tryAcquireRetry()));
    }
}
