package dev.idemproxy.core.call;

import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.FailureClass;
import dev.idemproxy.core.retry.FinishedAttempt;
import dev.idemproxy.core.retry.OutcomeClass;
import dev.idemproxy.core.retry.RetryBudgets;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.upstream.MalformedResponseException;
import dev.idemproxy.core.upstream.UpstreamConnection;
import dev.idemproxy.core.upstream.UpstreamListener;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The attempt loop of a {@link ProtectedCall}: sends the buffered request, judges how each attempt
 * ended, asks {@link dev.idemproxy.core.retry.RetryRules} (pure) what follows, and waits the backoff on the event loop.
 * Every attempt carries the same key and call id, its number and the time left. The answer that
 * ends the call goes to the {@link ResponseRelay}; an unknown outcome on a route with a receipt
 * endpoint goes to {@link ReceiptChecks} first. This class only does I/O and bookkeeping; it
 * computes no delay and classifies nothing itself.
 *
 * <p><b>Task budget.</b> A call that names a task reads its task's budget before the first
 * attempt, decides with that, and takes the task's token when it decides to retry. Both go to the
 * store when there is one, asynchronously, and come back to the loop: another proxy may have taken
 * the last token meanwhile, and then the call stops with {@code budget_task} after all.
 * Not thread-safe: runs on the client's event loop (upstream connections share it).
 */
final class AttemptLoop implements UpstreamListener {
    /** An answered attempt's metric result by status / 100, made once. */
    private static final String[] STATUS_CLASSES = {null, "1xx", "2xx", "3xx", "4xx", "5xx"};

    private final ProtectedCall c;
    final ReceiptChecks receiptChecks;
    /**
     * The last attempt already judged a failure: its connection, should it still arrive (a connect
     * or TLS handshake slower than the attempt's time), must not carry the request.
     */
    private int failedAttempt;
    private ScheduledFuture<?> timer;
    private long attemptStart;
    /** The last attempt counted in {@code upstream_attempts_total}: each is counted once. */
    private int recordedAttempt;

    AttemptLoop(ProtectedCall c) {
        this.c = c;
        this.receiptChecks = new ReceiptChecks(c);
    }

    void start() {
        String prior = c.call.protection() == null ? null : c.call.protection().takenOverFrom();
        if (prior != null && !c.repeatHarmless) {
            takeOver(prior);
            return;
        }
        firstAttempt();
    }

    /**
     * This call took over the lapsed claim of an earlier one that may have executed (its proxy
     * died mid-call). Repeating it would not be harmless, so ask the receipt endpoint about the
     * earlier call, or else leave the outcome ambiguous: stored, dead-lettered, never re-executed.
     */
    private void takeOver(String prior) {
        if (c.call.route().receipt() != null) {
            receiptChecks.startForPrior(prior);
            return;
        }
        c.relay.problem(new RetryDecision(RetryDecision.Action.STOP, Duration.ZERO, "takeover_unknown", OutcomeClass.UNKNOWN,
                true, false, true, Problem.AMBIGUOUS_OUTCOME), Problem.AMBIGUOUS_OUTCOME,
                "took over the lapsed claim of call " + prior + ", which may have executed; resolve it through the DLQ");
    }

    /** Starts the attempts (after a takeover, once the receipt said the earlier call was not found). */
    void firstAttempt() {
        if (c.identity.taskId() == null) {
            nextAttempt();
            return;
        }
        // One read of the task's budget first: the retry decisions and X-Retry-Budget-Remaining start from it.
        OnLoop.then(c.services.taskBudgets().peek(c.identity.taskId()), c.client.loop(), (budget, never) -> {
            c.task = budget;  // TaskBudgets never fail: null when the store did not answer
            nextAttempt();
        });
    }

    private void nextAttempt() {
        if (c.deadline.expired()) {
            c.relay.problem(null, Problem.DEADLINE_EXCEEDED, "the deadline expired before attempt " + (c.attempt + 1));
            return;
        }
        int n = ++c.attempt;
        c.relay.newAttempt();
        attemptStart = c.services.ticker().nanos();
        c.tries.started(n);
        OnLoop.then(c.services.upstreams().acquire(c.call.route(), c.client.loop(), this), c.client.loop(),
                (conn, failure) -> onAcquired(n, conn, failure));
        Duration wait = c.deadline.attemptTimeout(c.call.route().timeouts().perTry());
        long waitMillis = Math.max(1, wait.toMillis());
        // Scheduled in nanoseconds, not whole milliseconds: a timer cut short by the deadline must
        // not fire before it (the truncated millis did, by up to 1 ms), or the failure would be
        // judged with time still left and answered as a read-timeout instead of deadline-exceeded.
        timer = c.client.loop().schedule(() -> onAttemptTimeout(n, waitMillis), Math.max(1, wait.toNanos()), TimeUnit.NANOSECONDS);
    }

    private void onAcquired(int n, UpstreamConnection conn, Throwable failure) {
        if (n != c.attempt || c.settled || n == failedAttempt) {
            if (conn != null) {
                conn.release(false);
            }
            return;
        }
        if (failure != null) {
            attemptFailed(FailureClass.CONNECT_FAILURE, MalformedResponseException.describe(failure));
            return;
        }
        c.conn = conn;
        c.conn.channel().writeAndFlush(requestForAttempt(n)).addListener(w -> {
            if (!w.isSuccess() && n == c.attempt && !c.relay.answering() && c.conn != null) {
                c.releaseConn(false);
                attemptFailed(FailureClass.RESET_BEFORE_REQUEST, MalformedResponseException.describe(w.cause()));
            }
        });
    }

    private FullHttpRequest requestForAttempt(int n) {
        ProxyCall call = c.call;
        FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, call.request().method(), call.request().uri(),
                call.body().retainedDuplicate());
        HttpHeaders h = req.headers();
        h.set(c.upstreamHeaders);
        h.remove(HttpHeaderNames.TRANSFER_ENCODING);
        h.setInt(HttpHeaderNames.CONTENT_LENGTH, call.body().readableBytes());
        if (c.identity.key() != null) {
            h.set(c.identity.keyHeader(), c.identity.key());
        }
        h.set(CallIdentity.X_CALL_ID, c.identity.callId());
        h.setInt(CallIdentity.X_ATTEMPT, n);
        h.set(CallIdentity.X_REQUEST_TIMEOUT_MS, Long.toString(Math.max(0, c.deadline.remainingMillis())));
        return req;
    }

    @Override
    public void onResponseHead(HttpResponse resp) {
        if (c.settled || c.conn == null) {
            return;
        }
        stopTimer();
        int status = resp.status().code();
        int statusClass = status / 100;
        recordAttempt(statusClass >= 1 && statusClass <= 5 ? STATUS_CLASSES[statusClass] : statusClass + "xx");
        if (c.call.dialect().holdsAnswer(c.call, resp)) {
            c.relay.holdWhole(resp, null);  // its body read to the end, then judged: wholeAnswer
            return;
        }
        AttemptOutcome answered = c.call.dialect().classify(c.call, resp);
        if (receiptChecks.applies(answered)) {
            c.relay.holdWhole(resp, answered);  // its body read to the end, then the check starts
            return;
        }
        c.relay.holdForDecision(resp);
        decide(FinishedAttempt.of(c.attempt, answered), this::onHeadDecided);
    }

    /**
     * An answer held whole is all in: judged by its dialect (unless its class was given at its
     * head), then its receipt checked, or decided on: retried, ended with a problem (judged a
     * failure: no final response in it), or answered as it came.
     */
    void wholeAnswer(HeldAnswer h) {
        AttemptOutcome outcome = h.outcome != null ? h.outcome : c.call.dialect().classifyHeld(c.call, h.head, h.body());
        if (receiptChecks.applies(outcome)) {
            receiptChecks.start(outcome);  // the answer stays held: answered as it came if the check does not resolve
            return;
        }
        decide(FinishedAttempt.of(c.attempt, outcome), d -> {
            if (d.isRetry()) {
                c.relay.forgetWhole();
                scheduleRetry(d);
                return;
            }
            if (d.answerProblem().isPresent()) {
                c.relay.forgetWhole();
                c.relay.problem(d, d.answerProblem().get(), outcome + ": the upstream's answer held no response to judge the call by");
                return;
            }
            c.relay.answerWhole(d);
        });
    }

    /**
     * An answer to be judged whole grew past {@code maxResponseBody}: unknown, and counted as
     * started (it goes on to the client as it comes), so it is never retried.
     */
    void tooLargeToJudge(HttpResponse head) {
        AttemptOutcome unread = AttemptOutcome.judged(head.status().code(), OutcomeClass.UNKNOWN, null,
                "larger than maxResponseBody, not judged");
        decide(new FinishedAttempt(c.attempt, unread, true, false), this::onHeadDecided);
    }

    /** The upstream closed or went silent while an answer was held whole to be judged: the attempt failed. */
    void failedMidAnswer(FailureClass failure, String detail) {
        attemptFailed(failure, detail, false);
    }

    private void onHeadDecided(RetryDecision d) {
        if (d.isRetry()) {
            c.relay.dropHeld();
            c.releaseConn(false);
            scheduleRetry(d);
            return;
        }
        c.relay.answerHeld(d);
    }

    @Override
    public void onResponseContent(HttpContent content) {
        c.relay.content(content);
    }

    @Override
    public void onReadComplete() {
        c.relay.readComplete();
    }

    @Override
    public void onWritabilityChanged(boolean writable) {
        // The request is one buffered message; nothing to pace.
    }

    @Override
    public void onUpstreamClosed(Throwable cause) {
        c.conn = null;
        if (c.relay.upstreamClosed()) {
            return;
        }
        stopTimer();
        boolean headCame = c.attempt == recordedAttempt;  // cut while its answer was held whole: counted at its head
        attemptFailed(FailureClass.RESET, cause == null ? "connection closed before a response" : MalformedResponseException.describe(cause),
                !headCame);
    }

    @Override
    public void onUpstreamIdle() {
        c.relay.upstreamIdle();
    }

    /** The attempt's time ran out: {@code millis}, its {@code perTry} or what was left before the deadline. */
    private void onAttemptTimeout(int n, long millis) {
        if (n != c.attempt || c.settled || c.relay.answering()) {
            return;
        }
        boolean sent = c.conn != null;
        c.releaseConn(false);
        if (!sent) {
            attemptFailed(FailureClass.CONNECT_FAILURE, "no connection within the attempt's time");
        } else {
            attemptFailed(FailureClass.READ_TIMEOUT, "no response head within " + millis + " ms");
        }
    }

    private void attemptFailed(FailureClass failure, String detail) {
        attemptFailed(failure, detail, true);
    }

    /** @param record count the attempt under the failure (false: it was counted at its answer's head) */
    private void attemptFailed(FailureClass failure, String detail, boolean record) {
        // Judged (say, connect-failure: nothing sent, safe to retry): a late connection for it is
        // closed unused, else it would send a request already counted as never sent.
        failedAttempt = c.attempt;
        stopTimer();
        if (record) {
            recordAttempt(failure.spelling());
        }
        if (receiptChecks.applies(AttemptOutcome.failed(failure))) {
            receiptChecks.start(AttemptOutcome.failed(failure));
            return;
        }
        decide(FinishedAttempt.of(c.attempt, AttemptOutcome.failed(failure)), d -> {
            if (d.isRetry()) {
                scheduleRetry(d);
                return;
            }
            Problem p = d.answerProblem().orElse(failure == FailureClass.CONNECT_FAILURE
                    ? Problem.UPSTREAM_UNREACHABLE : Problem.UPSTREAM_RESET);
            c.relay.problem(d, p, failure.spelling() + ": " + detail);
        });
    }

    /**
     * Decides what follows this attempt and hands the decision to {@code then}, on the loop. The
     * task budget answers from what was last seen of it; a RETRY of a call that names a task then
     * takes the task's token, and if another proxy took the last one meanwhile the decision is
     * taken again with the task budget spent (a STOP with {@code budget_task}).
     */
    void decide(FinishedAttempt finished, Consumer<RetryDecision> decided) {
        Consumer<RetryDecision> then = c.tries.deciding(finished, decided);
        RetryDecision d = decideWith(finished, c.task == null || c.task.allowed());
        if (!d.isRetry() || c.identity.taskId() == null) {
            then.accept(d);
            return;
        }
        OnLoop.then(c.services.taskBudgets().tryAcquire(c.identity.taskId()), c.client.loop(), (taken, never) -> {
            if (c.settled) {
                return;
            }
            if (taken == null) {  // the store did not answer: go on (fail open), nothing known
                then.accept(d);
                return;
            }
            c.task = taken.allowed() ? taken.charged() : taken;
            then.accept(taken.allowed() ? d : decideWith(finished, false));
        });
    }

    /** After a receipt check: decide as usual, with NOT_FOUND making a repeat harmless. */
    void decideAfterReceipt(AttemptOutcome outcome, boolean receiptNotFound, String detail) {
        decide(new FinishedAttempt(c.attempt, outcome, false, receiptNotFound), d -> {
            if (d.isRetry()) {
                c.relay.forgetWhole();
                scheduleRetry(d);
                return;
            }
            if (c.relay.holdsWhole() && d.answerProblem().isEmpty()) {
                // No retry (attempts, budget or deadline): the last failure is returned, the
                // upstream's 5xx as it came, as without a receipt endpoint; the key goes as d says.
                c.relay.answerWhole(d);
                return;
            }
            c.relay.forgetWhole();
            c.relay.problem(d, d.answerProblem().orElse(Problem.AMBIGUOUS_OUTCOME), detail);
        });
    }

    private RetryDecision decideWith(FinishedAttempt finished, boolean taskAllows) {
        return c.services.rules().decide(c.call.route().retry(), c.repeatHarmless, finished, c.deadline,
                RetryBudgets.of(taskAllows, () -> c.services.routeBudget(c.call.route()).tryAcquireRetry()));
    }

    void scheduleRetry(RetryDecision d) {
        c.services.log().retry(c.call.route().name(), c.identity.callId(), c.identity.bizId(), c.attempt, d.reason(),
                d.delay().toMillis());
        c.client.loop().schedule(this::nextAttempt, Math.max(0, d.delay().toMillis()), TimeUnit.MILLISECONDS);
    }

    private void recordAttempt(String result) {
        recordedAttempt = c.attempt;
        c.services.metrics().upstreamAttempt(c.call.route().name(), result, Duration.ofNanos(c.services.ticker().nanos() - attemptStart));
    }

    void stopTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
