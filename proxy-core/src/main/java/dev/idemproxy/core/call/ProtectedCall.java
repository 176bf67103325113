package dev.idemproxy.core.call;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.call.CallEvent.Signal;
import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.retry.Deadline;
import dev.idemproxy.core.retry.OutcomeClass;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.retry.RetryReason;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.tries.TryLog;
import dev.idemproxy.core.util.ProxyHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.concurrent.Future;
import java.time.Instant;
import java.util.List;

/**
 * One protected call, from its plan to its answer: the one owner of everything the call does,
 * a state machine ({@link CallPhase}) confined to its client connection's event loop. A recorded
 * call claims its idempotency record ({@link Claiming}): a duplicate of a completed call is
 * replayed, a conflict refused, a duplicate of a call in flight waits; a claimed call, or one
 * without a record, forwards ({@link Forwarding}); when its end is decided it settles: its
 * receipt, dead letter and log line, and its record's end ({@link Recording}), whose first write
 * the answer's end waits for, so a caller that saw a whole answer never finds it missing after a
 * crash. Other classes decide (pure) and return values; they never change the call's state.
 *
 * <p>Every asynchronous result — the store's, the upstream's, a timer, the client's close —
 * enters through the call's one {@link Door}, on the loop, one at a time, as a {@link CallEvent}.
 * Not thread-safe: confined to the loop.
 */
public final class ProtectedCall {
    private final ProxyCall call;
    private final CallServices services;
    private final ClientSide client;
    private final Door door;
    private final Instant createdAt;
    private final CallIdentity identity;
    /** The claim phase of a recorded call; null for a call without a record. */
    private final Claiming claiming;
    private final CallWatch watch;
    /** The call's tries, kept with its receipt. */
    private final TryLog tries;
    private CallPhase phase = CallPhase.PLANNED;
    private Forwarding forwarding;
    /** The claimed record; null for a call without one (or forwarded unprotected as the store did not answer). */
    private Recording recording;
    /** Whether the call writes its own receipts (it has no record; false when the store did not answer). */
    private boolean writesReceipt;
    private Verdict verdict;

    private ProtectedCall(ProxyCall call, CallServices services, ClientSide client, CallIdentity identity, Instant createdAt,
            CallPlan.Protect plan) {
        this.call = requireNonNull(call, "call");
        this.services = requireNonNull(services, "services");
        this.client = requireNonNull(client, "client");
        this.identity = requireNonNull(identity, "identity");
        this.createdAt = requireNonNull(createdAt, "createdAt");
        this.door = new Door(client.loop(), this::on);
        this.claiming = plan == null ? null : new Claiming(call, plan, identity, createdAt, services, door);
        this.tries = new TryLog(services.ticker(), call.startNanos());
        this.watch = CallWatch.both(new TriesWatch(tries), services.watchers().watch(call, identity));
    }

    /** A call that claims the record of {@code plan} first. */
    public static ProtectedCall recorded(ProxyCall call, CallPlan.Protect plan, CallIdentity identity, Instant createdAt,
            CallServices services, ClientSide client) {
        return new ProtectedCall(call, services, client, identity, createdAt, requireNonNull(plan, "plan"));
    }

    /** A call without a record (a retry-only route, a method not protected, no store): it forwards at once. */
    public static ProtectedCall unrecorded(ProxyCall call, CallIdentity identity, Instant createdAt, CallServices services,
            ClientSide client) {
        return new ProtectedCall(call, services, client, identity, createdAt, null);
    }

    /** Starts the call on its loop. */
    public void start() {
        door.enter(Signal.START);
    }

    /** The client drained its buffer. */
    public void clientWritable() {
        door.enter(Signal.CLIENT_WRITABLE);
    }

    /** The client's connection closed: a call not yet forwarded is abandoned; a forwarded one runs to its end. */
    public void clientGone() {
        door.enter(Signal.CLIENT_GONE);
    }

    /** Whether the call is done with its connection: it answered (or is writing its answer's end), or was abandoned. */
    public boolean over() {
        return phase.isFinal() || phase == CallPhase.RECORDING || phase == CallPhase.ABANDONED;
    }

    CallPhase phase() {
        return phase;
    }

    /** The door's receiver: every event of the call, on its loop, one at a time. */
    private void on(CallEvent e) {
        if (e == Signal.START) {
            if (claiming != null) {
                move(CallPhase.CLAIMING);
                claiming.claim();
            } else {
                forward(List.of(), true);
            }
        } else if (phase == CallPhase.FORWARDING) {
            if (e == Signal.RENEW) {
                recording.renew();
            } else if (e instanceof CallEvent.Renewed r) {
                recording.renewed(r);
            } else {
                settle(forwarding.on(e == Signal.CLIENT_GONE ? Signal.CLIENT_WRITABLE : e));  // gone: its answer drains
            }
        } else if (e instanceof CallEvent.Recorded r) {
            recorded(r);
        } else if (e instanceof CallEvent.RecordFound f) {
            recording.found(f);
        } else if (e == Signal.ANSWER_WRITTEN) {
            client.ended();
        } else if (phase == CallPhase.CLAIMING || phase == CallPhase.WAITING || phase == CallPhase.ABANDONED) {
            claimStep(claiming.on(e, phase));
        } else {
            CallEvent.drop(e);  // late: for a phase the call has left
        }
    }

    /** The claim phase's step, if it took one. */
    private void claimStep(ClaimSteps.Next next) {
        if (next == null) {
            return;
        }
        switch (next.kind()) {
            case CLAIMING, WAITING, ABANDONED -> move(next.kind().phase);
            case REPLAYED -> {
                move(CallPhase.REPLAYED);
                claiming.replay(client, watch);
            }
            case REFUSED -> {
                move(CallPhase.REFUSED);
                claiming.refuse(client, watch);
            }
            case FORWARD -> {
                recording = next.recording();
                forward(next.priors(), false);
            }
            case UNPROTECTED -> {
                services.metrics().storePassthrough(call.route().name());
                forward(List.of(), false);
            }
        }
    }

    /**
     * The call is forwarded: it counts in flight until its answer's end is written, outlives its
     * client, and starts its attempts with its deadline (the caller's, capped by
     * {@code timeouts.total}) and its request rewritten for the upstream.
     *
     * @param priors      the calls whose lapsed claims this one took over, oldest first; empty for none
     * @param ownReceipts whether the call writes its own receipts (it has no record)
     */
    private void forward(List<String> priors, boolean ownReceipts) {
        move(CallPhase.FORWARDING);
        writesReceipt = ownReceipts;
        HttpHeaders h = call.request().headers();
        Deadline deadline = Deadline.of(call.route().timeouts().total(), h.get(ProxyHeaders.X_REQUEST_TIMEOUT_MS),
                h.get(ProxyHeaders.X_REQUEST_DEADLINE), services.ticker(), services.clock());
        h.remove(ProxyHeaders.X_REQUEST_TIMEOUT_MS).remove(ProxyHeaders.X_REQUEST_DEADLINE);
        client.forwarded();
        services.routeBudget(call.route()).recordRequest();
        if (ownReceipts) {
            services.recorder().started(call, identity, createdAt);
        }
        if (recording != null) {
            recording.renewLater();
        }
        forwarding = new Forwarding(new CallContext(call, identity, services, client, door, deadline, h,
                call.dialect().repeatHarmless(call), watch));
        settle(forwarding.start(priors));
    }

    /**
     * The attempts decided the call's end: its budget metrics, its receipt and dead letter, its
     * record's end; the answer's end goes once the record's first write answered (at once without
     * a record). A cut answer's line goes now: its client has had all it gets.
     */
    private void settle(Verdict v) {
        if (v == null) {
            return;
        }
        move(CallPhase.RECORDING);
        CallSettlement s = v.settlement().withTries(tries.finish(v.settlement().decision()));
        verdict = new Verdict(s, v.answer());
        watch.settled(s);
        RetryReason why = s.why();
        if (why == RetryReason.BUDGET_TASK || why == RetryReason.BUDGET_ROUTE) {
            services.metrics().budgetExhausted(call.route().name(),
                    why == RetryReason.BUDGET_TASK ? ProxyMetrics.BUDGET_TASK : ProxyMetrics.BUDGET_ROUTE);
        }
        ReceiptPut receipt = services.recorder().settled(door.loop(), call, identity, recording == null ? null : recording.key(),
                recording == null ? null : recording.owner(), createdAt, s, writesReceipt);
        if (v.answer() instanceof Verdict.Cut) {
            log(s);
        }
        call.releaseBody();
        if (recording != null) {
            recording.end(s, receipt);
        } else {
            answer();
        }
    }

    private void recorded(CallEvent.Recorded r) {
        if (r.n() == 1 && phase == CallPhase.RECORDING) {
            answer();
        }
        if (StoreWrites.isLast(r.n(), r.failure())) {
            recording.recorded(r);
        }
    }

    /** The answer's end goes to the client, after the call's line (so a reader of the answer finds the line there). */
    private void answer() {
        move(CallPhase.ANSWERED);
        Verdict.Answer a = verdict.answer();
        Future<Void> written;
        if (a instanceof Verdict.Last l) {
            call.addBytesOut(l.last().content().readableBytes());
            log(verdict.settlement());
            written = client.last(l.last());
        } else if (a instanceof Verdict.Whole w) {
            call.addBytesOut(w.response().content().readableBytes());
            log(verdict.settlement());
            written = client.whole(w.response());
        } else {
            written = ((Verdict.Cut) a).closed();  // its line went as it settled
        }
        door.when(written, (v, err) -> Signal.ANSWER_WRITTEN);
    }

    private void log(CallSettlement s) {
        services.log().finished(call, outcomeOf(s), s.finalStatus(), identity.callId(), identity.bizId(), identity.key(),
                s.attempts(), s.reason());
    }

    /** The outcome tag of a settled protected call. */
    static CallOutcome outcomeOf(CallSettlement s) {
        RetryDecision d = s.decision();
        if (s.truncated() || d == null || d.deadLetter()) {
            return CallOutcome.FAILED;
        }
        return d.outcome() == OutcomeClass.EXECUTED || d.store() ? CallOutcome.EXECUTED : CallOutcome.NOT_EXECUTED;
    }

    private void move(CallPhase next) {
        if (!phase.canMoveTo(next)) {
            throw new IllegalStateException("call " + identity.callId() + ": " + phase + " -> " + next
                    + " (expected: one of " + phase.next() + ")");
        }
        watch.phase(phase, next);
        phase = next;
    }
}
