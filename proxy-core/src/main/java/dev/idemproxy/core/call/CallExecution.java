package dev.idemproxy.core.call;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.problem.ProblemResponses;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.Deadline;
import dev.idemproxy.core.retry.FailureClass;
import dev.idemproxy.core.retry.FinishedAttempt;
import dev.idemproxy.core.retry.RetryBudgets;
import dev.idemproxy.core.retry.OutcomeClass;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.retry.RetryRules;
import dev.idemproxy.core.retry.TaskBudgetDecision;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.upstream.UpstreamConnection;
import dev.idemproxy.core.upstream.UpstreamListener;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The attempt loop of one protected call: sends the buffered request, classifies what comes
 * back, asks the retry rules whether to try again, waits the backoff on the event loop, and
 * streams the final response to the client while capturing it for replay. Every attempt
 * carries the same key and call id, its number, and the time left. Decisions are made in pure
 * code; this class only does the I/O. Not thread-safe: every method runs on the client's loop
 * (upstream connections share it).
 *
 * <p><b>Task budget.</b> A call that names a task reads its task's budget before the first
 * attempt, decides with that, and takes the task's token when it decides to retry. Both go
 * to the store when there is one, asynchronously, and come back to the loop: another proxy may
 * have taken the last token meanwhile, and then the call stops with {@code budget_task} after all.
 * While a response head waits for that answer it is held, its content queued and the upstream
 * paused; it is then either dropped for the retry or streamed as the final response.
 */
public final class CallExecution implements UpstreamListener {
    private final ProxyCall call;
    private final CallIdentity identity;
    private final HttpHeaders upstreamHeaders;
    private final CallServices services;
    private final ClientSide client;
    private final Deadline deadline;
    private final Function<CallSettlement, CompletionStage<?>> onSettled;

    private final ReceiptChecks receiptChecks;
    private int attempt;
    /**
     * The last attempt already judged a failure: its connection, should it still arrive (a
     * connect or TLS handshake slower than the attempt's time), must not carry the request.
     */
    private int failedAttempt;
    private UpstreamConnection conn;
    private ScheduledFuture<?> timer;
    private boolean responseStarted;
    private boolean discardingResponse;
    private boolean upstreamWantsClose;
    private ResponseCapture capture;
    private RetryDecision finalDecision;
    private int finalStatus;
    private boolean settled;
    private long attemptStart;
    /** The task's budget as last seen; null when the call names no task or the store did not answer. */
    private TaskBudgetDecision task;
    /** A response head waiting for its retry decision (the task's token); null otherwise. */
    private HeldResponse held;
    /** A 5xx kept whole while its receipt is checked, answered as it came if the check does not resolve; else null. */
    private HeldForReceipt heldForReceipt;

    /**
     * @param upstreamHeaders the request headers as rewritten for the upstream (hop-by-hop gone)
     */
    public CallExecution(ProxyCall call, CallIdentity identity, HttpHeaders upstreamHeaders, CallServices services,
            ClientSide client, Deadline deadline, Function<CallSettlement, CompletionStage<?>> onSettled) {
        this.call = requireNonNull(call, "call");
        this.identity = requireNonNull(identity, "identity");
        this.upstreamHeaders = requireNonNull(upstreamHeaders, "upstreamHeaders");
        this.services = requireNonNull(services, "services");
        this.client = requireNonNull(client, "client");
        this.receiptChecks = new ReceiptChecks(this);
        this.deadline = deadline;
        this.onSettled = onSettled;
    }

    public int attempts() {
        return attempt;
    }

    public void start() {
        String prior = call.protection() == null ? null : call.protection().takenOverFrom();
        if (prior != null && !RetryRules.harmlessToRepeat(call.route(), call.request().method().name(), false)) {
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
        if (call.route().receipt() != null) {
            receiptChecks.startForPrior(prior);
            return;
        }
        stopWithProblem(new RetryDecision(RetryDecision.Action.STOP, Duration.ZERO, "takeover_unknown", OutcomeClass.UNKNOWN,
                true, false, true, Problem.AMBIGUOUS_OUTCOME), Problem.AMBIGUOUS_OUTCOME,
                "took over the lapsed claim of call " + prior + ", which may have executed; resolve it through the DLQ");
    }

    /** Starts the attempts (after a takeover, once the receipt said the earlier call was not found). */
    void firstAttempt() {
        if (identity.taskId() == null) {
            nextAttempt();
            return;
        }
        // One read of the task's budget first: the retry decisions and X-Retry-Budget-Remaining start from it.
        services.taskBudgets().peek(identity.taskId()).thenAccept(budget -> onLoop(() -> {
            task = budget;
            nextAttempt();
        }));
    }

    private void nextAttempt() {
        if (deadline.expired()) {
            stopWithProblem(null, Problem.DEADLINE_EXCEEDED, "the deadline expired before attempt " + (attempt + 1));
            return;
        }
        attempt++;
        responseStarted = false;
        discardingResponse = false;
        int n = attempt;
        attemptStart = System.nanoTime();
        services.pools().acquire(call.route(), client.loop(), this).addListener(f -> onAcquired(n, f));
        Duration wait = deadline.attemptTimeout(call.route().timeouts().perTry());
        long waitMillis = Math.max(1, wait.toMillis());
        // Scheduled in nanoseconds, not whole milliseconds: a timer cut short by the deadline must
        // not fire before it (the truncated millis did, by up to 1 ms), or the failure would be
        // judged with time still left and answered as a read-timeout instead of deadline-exceeded.
        timer = client.loop().schedule(() -> onAttemptTimeout(n, waitMillis), Math.max(1, wait.toNanos()), TimeUnit.NANOSECONDS);
    }

    private void onAcquired(int n, Future<?> f) {
        if (n != attempt || settled || n == failedAttempt) {
            if (f.isSuccess()) {
                ((UpstreamConnection) f.getNow()).release(false);
            }
            return;
        }
        if (!f.isSuccess()) {
            attemptFailed(FailureClass.CONNECT_FAILURE, describe(f.cause()));
            return;
        }
        conn = (UpstreamConnection) f.getNow();
        conn.channel().writeAndFlush(requestForAttempt(n)).addListener(w -> {
            if (!w.isSuccess() && n == attempt && !responseStarted && conn != null) {
                releaseConn(false);
                attemptFailed(FailureClass.RESET_BEFORE_REQUEST, describe(w.cause()));
            }
        });
    }

    private FullHttpRequest requestForAttempt(int n) {
        FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, call.request().method(), call.request().uri(),
                call.body().retainedDuplicate());
        HttpHeaders h = req.headers();
        h.set(upstreamHeaders);
        h.remove(HttpHeaderNames.TRANSFER_ENCODING);
        h.setInt(HttpHeaderNames.CONTENT_LENGTH, call.body().readableBytes());
        if (identity.key() != null) {
            h.set(identity.keyHeader(), identity.key());
        }
        h.set(CallIdentity.X_CALL_ID, identity.callId());
        h.setInt(CallIdentity.X_ATTEMPT, n);
        h.set(CallIdentity.X_REQUEST_TIMEOUT_MS, Long.toString(Math.max(0, deadline.remainingMillis())));
        return req;
    }

    @Override
    public void onResponseHead(HttpResponse resp) {
        if (settled || conn == null) {
            return;
        }
        cancelTimer();
        int status = resp.status().code();
        int statusClass = status / 100;
        recordAttempt(statusClass >= 1 && statusClass <= 5 ? STATUS_CLASSES[statusClass] : statusClass + "xx");
        upstreamWantsClose = !HttpUtil.isKeepAlive(resp);
        AttemptOutcome answered = AttemptOutcome.answered(status, resp.headers().get(HttpHeaderNames.RETRY_AFTER));
        if (receiptChecks.applies(answered)) {
            // Kept (its body read to the end, then the connection released) while the receipt is
            // checked: an unresolved check answers and stores this 5xx as it came.
            heldForReceipt = new HeldForReceipt(resp, answered, call.route().idempotency().maxResponseBody());
            return;
        }
        held = new HeldResponse(resp);
        decide(FinishedAttempt.of(attempt, answered), this::onHeadDecided);
    }

    private void onHeadDecided(RetryDecision d) {
        HeldResponse h = held;
        held = null;
        if (d.isRetry()) {
            h.release();
            discardingResponse = true;
            releaseConn(false);
            scheduleRetry(d);
            return;
        }
        HttpResponse resp = h.head;
        answerHead(d, resp);
        if (conn != null) {
            conn.channel().config().setAutoRead(true);
        }
        for (HttpContent c : h.contents) {
            onResponseContent(c);
        }
        if (h.upstreamClosed && !settled) {
            truncated("the upstream closed the connection mid-response");
        }
    }

    @Override
    public void onResponseContent(HttpContent content) {
        if (heldForReceipt != null && !heldForReceipt.complete()) {
            holdForReceipt(content);
            return;
        }
        if (held != null) {
            held.contents.add(content);
            if (conn != null) {
                conn.channel().config().setAutoRead(false);
            }
            return;
        }
        if (settled || discardingResponse || !responseStarted) {
            content.release();
            return;
        }
        capture.content(content.content());
        boolean last = content instanceof LastHttpContent;
        if (last) {
            // The response's end goes to the client only once its record is written: a caller
            // that saw the whole response can never find that outcome missing after a crash.
            releaseConn(!upstreamWantsClose);
            settle(capture.result(), false).whenComplete((v, err) -> onLoop(() -> {
                client.content(content);
                client.flush();
            }));
            return;
        }
        client.content(content);
        if (!client.writable() && conn != null) {
            conn.channel().config().setAutoRead(false);
            client.flush();
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
            releaseConn(!upstreamWantsClose);
            receiptChecks.start(h.outcome);
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
        discardingResponse = true;
        releaseConn(false);
        if (!settled) {
            receiptChecks.start(outcome);
        }
    }

    /** The client drained its buffer (or went away): resume reading the response. */
    public void clientWritable() {
        if (conn != null && responseStarted) {
            conn.channel().config().setAutoRead(true);
        }
    }

    @Override
    public void onReadComplete() {
        if (responseStarted) {
            client.flush();
        }
    }

    @Override
    public void onWritabilityChanged(boolean writable) {
        // The request is one buffered message; nothing to pace.
    }

    @Override
    public void onUpstreamClosed(Throwable cause) {
        conn = null;
        if (heldForReceipt != null && !heldForReceipt.complete()) {
            dropHeldForReceipt();
            return;
        }
        if (held != null) {
            held.upstreamClosed = true;
            return;
        }
        if (settled || discardingResponse) {
            return;
        }
        if (responseStarted) {
            truncated("the upstream closed the connection mid-response");
        } else {
            cancelTimer();
            attemptFailed(FailureClass.RESET, cause == null ? "connection closed before a response" : describe(cause));
        }
    }

    @Override
    public void onUpstreamIdle() {
        if (heldForReceipt != null && !heldForReceipt.complete()) {
            dropHeldForReceipt();
            return;
        }
        if (!settled && responseStarted) {
            releaseConn(false);
            truncated("the upstream went silent mid-response for " + call.route().timeouts().idle());
        }
    }

    /** The attempt's time ran out: {@code millis}, its {@code perTry} or what was left before the deadline. */
    private void onAttemptTimeout(int n, long millis) {
        if (n != attempt || settled || responseStarted) {
            return;
        }
        boolean sent = conn != null;
        releaseConn(false);
        if (!sent) {
            attemptFailed(FailureClass.CONNECT_FAILURE, "no connection within the attempt's time");
        } else {
            attemptFailed(FailureClass.READ_TIMEOUT, "no response head within " + millis + " ms");
        }
    }

    private void attemptFailed(FailureClass failure, String detail) {
        // Judged (say, connect-failure: nothing sent, safe to retry): a late connection for it is
        // closed unused, else it would send a request already counted as never sent.
        failedAttempt = attempt;
        cancelTimer();
        recordAttempt(failure.spelling());
        if (receiptChecks.applies(AttemptOutcome.failed(failure))) {
            receiptChecks.start(AttemptOutcome.failed(failure));
            return;
        }
        decide(FinishedAttempt.of(attempt, AttemptOutcome.failed(failure)), d -> {
            if (d.isRetry()) {
                scheduleRetry(d);
                return;
            }
            Problem p = d.answerProblem().orElse(failure == FailureClass.CONNECT_FAILURE
                    ? Problem.UPSTREAM_UNREACHABLE : Problem.UPSTREAM_RESET);
            stopWithProblem(d, p, failure.spelling() + ": " + detail);
        });
    }

    /**
     * Decides what follows this attempt and hands the decision to {@code then}, on the loop. The
     * task budget answers from what was last seen of it; a RETRY of a call that names a task then
     * takes the task's token, and if another proxy took the last one meanwhile the decision is
     * taken again with the task budget spent (a STOP with {@code budget_task}).
     */
    private void decide(FinishedAttempt finished, Consumer<RetryDecision> then) {
        RetryDecision d = decideWith(finished, task == null || task.allowed());
        if (!d.isRetry() || identity.taskId() == null) {
            then.accept(d);
            return;
        }
        services.taskBudgets().tryAcquire(identity.taskId()).thenAccept(taken -> onLoop(() -> {
            if (settled) {
                return;
            }
            if (taken == null) {  // the store did not answer: go on (fail open), nothing known
                then.accept(d);
                return;
            }
            task = taken.allowed() ? taken.charged() : taken;
            then.accept(taken.allowed() ? d : decideWith(finished, false));
        }));
    }

    private RetryDecision decideWith(FinishedAttempt finished, boolean taskAllows) {
        return services.rules().decide(call.route(), call.request().method().name(), finished, deadline,
                RetryBudgets.of(taskAllows, () -> services.routeBudget(call.route()).tryAcquireRetry()));
    }

    /**
     * Runs {@code r} as a task of the client's loop: store stages complete on store threads, and
     * even a completed stage's callback would swallow what {@code r} throws.
     */
    private void onLoop(Runnable r) {
        client.loop().execute(r);
    }

    /** An answered attempt's metric result by status / 100, made once. */
    private static final String[] STATUS_CLASSES = {null, "1xx", "2xx", "3xx", "4xx", "5xx"};

    private void recordAttempt(String result) {
        services.metrics().upstreamAttempt(call.route().name(), result, Duration.ofNanos(System.nanoTime() - attemptStart));
    }

    /**
     * After a receipt check: decide as usual, with NOT_FOUND making a repeat harmless.
     * (Called by {@link ReceiptChecks}.)
     */
    void decideAfterReceipt(AttemptOutcome outcome, boolean receiptNotFound, String detail) {
        decide(new FinishedAttempt(attempt, outcome, false, receiptNotFound), d -> {
            if (d.isRetry()) {
                heldForReceipt = null;
                scheduleRetry(d);
                return;
            }
            if (heldForReceipt != null && d.answerProblem().isEmpty()) {
                // No retry (attempts, budget or deadline): the last failure is returned, the
                // upstream's 5xx as it came, as without a receipt endpoint; the key goes as d says.
                finishWithHeldResponse(d);
                return;
            }
            heldForReceipt = null;
            stopWithProblem(d, d.answerProblem().orElse(Problem.AMBIGUOUS_OUTCOME), detail);
        });
    }

    /** The receipt settled the call: SUCCESS with its result, or FAILED. (Called by {@link ReceiptChecks}.) */
    void finishFromReceipt(RetryDecision d, StoredResponse answer, Problem problem, String detail) {
        heldForReceipt = null;
        if (problem != null) {
            stopWithProblem(d, problem, detail);
            return;
        }
        finalDecision = d;
        finalStatus = answer.status();
        int n = attempt;
        // The answer goes out once its record is written (see stopWithProblem).
        settle(answer, false).whenComplete((v, err) -> onLoop(() -> client.replay(answer, identity.callId(), n)));
    }

    /** True while a 5xx is kept whole for the receipt check ({@link #finishWithHeldResponse} can answer it). */
    boolean holdsResponseForReceipt() {
        return heldForReceipt != null;
    }

    /** The final decision's response head goes to the client, and its capture for the record starts. */
    private void answerHead(RetryDecision d, HttpResponse resp) {
        finalDecision = d;
        finalStatus = resp.status().code();
        responseStarted = true;
        capture = new ResponseCapture(call.route().idempotency().maxResponseBody());
        decorate(resp.headers());
        client.head(resp);
        capture.head(resp);
    }

    /**
     * The receipt check did not resolve an upstream 5xx: the call answers that response as it
     * came (status, headers, body) and stores it for duplicates, as it would have without a
     * receipt endpoint. As for a forwarded response, its end goes to the client once its record
     * is written. (Called by {@link ReceiptChecks}.)
     */
    void finishWithHeldResponse(RetryDecision d) {
        HeldForReceipt h = heldForReceipt;
        heldForReceipt = null;
        HttpResponse resp = h.head;
        answerHead(d, resp);
        LastHttpContent last = h.last(client.alloc());
        capture.content(last.content());
        settle(capture.result(), false).whenComplete((v, err) -> onLoop(() -> {
            client.content(last);
            client.flush();
        }));
    }

    ProxyCall call() {
        return call;
    }

    CallIdentity identity() {
        return identity;
    }

    Deadline deadline() {
        return deadline;
    }

    CallServices services() {
        return services;
    }

    ClientSide client() {
        return client;
    }

    boolean settledAlready() {
        return settled;
    }

    int attempt() {
        return attempt;
    }

    private void scheduleRetry(RetryDecision d) {
        services.log().retry(call.route().name(), identity.callId(), identity.bizId(), attempt, d.reason(), d.delay().toMillis());
        client.loop().schedule(this::nextAttempt, Math.max(0, d.delay().toMillis()), TimeUnit.MILLISECONDS);
    }

    private void stopWithProblem(RetryDecision d, Problem p, String detail) {
        finalDecision = d;
        finalStatus = p.status();
        FullHttpResponse resp = ProblemResponses.build(client.alloc(), p, detail, identity.callId());
        decorate(resp.headers());
        // As for a forwarded response's end: the answer goes to the client only once its record is
        // written, so a caller told (say) 504 ambiguous-outcome never finds that record missing
        // after a crash, and a duplicate is never a fresh call that runs it again.
        settle(problemResponse(p, detail), false).whenComplete((v, err) -> onLoop(() -> client.problem(resp)));
    }

    /** The headers every answer of the call carries: X-Call-Id, X-Attempts, and the task's budget left. */
    private void decorate(HttpHeaders h) {
        identity.decorate(h, attempt);
        if (task != null) {
            h.set(CallIdentity.X_RETRY_BUDGET_REMAINING, Long.toString(task.remaining()));
        }
    }

    private void truncated(String detail) {
        client.abort();
        Problem p = Problem.AMBIGUOUS_OUTCOME;
        settle(problemResponse(p, detail + "; the call may have executed"), true);
    }

    private StoredResponse problemResponse(Problem p, String detail) {
        byte[] json = ProblemResponses.json(p, detail, identity.callId()).getBytes(StandardCharsets.UTF_8);
        return new StoredResponse(p.status(), List.of(
                new StoredHeader("content-type", ProblemResponses.CONTENT_TYPE),
                new StoredHeader(CallIdentity.X_CALL_ID.toString(), identity.callId())), json);
    }

    private CompletionStage<?> settle(StoredResponse response, boolean truncated) {
        if (settled) {
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }
        settled = true;
        if (finalDecision != null && RetryDecision.BUDGET_TASK.equals(finalDecision.reason())) {
            services.metrics().budgetExhausted(call.route().name(), ProxyMetrics.BUDGET_TASK);
        } else if (finalDecision != null && RetryDecision.BUDGET_ROUTE.equals(finalDecision.reason())) {
            services.metrics().budgetExhausted(call.route().name(), ProxyMetrics.BUDGET_ROUTE);
        }
        cancelTimer();
        return onSettled.apply(new CallSettlement(finalDecision, attempt, truncated ? Problem.AMBIGUOUS_OUTCOME.status() : finalStatus,
                response, truncated));
    }

    private void releaseConn(boolean reusable) {
        UpstreamConnection c = conn;
        conn = null;
        if (c != null) {
            c.release(reusable);
        }
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    /** A one-line description of a failure for problem details and logs. */
    public static String describe(Throwable t) {
        if (t instanceof dev.idemproxy.core.upstream.MalformedResponseException) {
            return t.getMessage();
        }
        Throwable c = t;
        while (c.getCause() != null && c.getMessage() == null) {
            c = c.getCause();
        }
        return c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage());
    }
}
