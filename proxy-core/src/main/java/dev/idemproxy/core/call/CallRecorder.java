package dev.idemproxy.core.call;

import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.util.LogThrottle;
import dev.idemproxy.core.retry.OutcomeClass;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.secret.Redactor;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.DeadLetterStore;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.store.ReceiptStore;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredRequest;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.tries.CallHeads;
import dev.idemproxy.core.tries.CallTries;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.EventLoop;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leaves the trace of every protected call in the store: a receipt (PROCESSING while it runs,
 * then SUCCESS, or FAILED with the reason for a call that ended unsuccessfully or whose
 * not-executed answer went back to the caller) and, for a call that ended unsuccessfully, a
 * dead-letter entry holding the request as a replay needs it: its target as sent (secret query
 * parameters included, so that the replay reaches the same URL) and its headers, the value of
 * every credential header ({@link Redactor#isSecretHeader}) replaced by {@value Redactor#MASK}
 * unless the route's {@code deadLetter.keepHeaders} names it. What is kept is for the replay
 * alone: the admin API shows a stored request through the same {@link Redactor}. Writes are
 * asynchronous and never block the loop; a failed write is logged. This class is thread-safe.
 */
public final class CallRecorder {
    public static final String PROCESSING = "PROCESSING";
    public static final String SUCCESS = "SUCCESS";
    public static final String FAILED = "FAILED";
    /** What a credential header not kept for replays is stored as. */
    public static final String REDACTED = Redactor.MASK;
    /** The reason of a call whose client left before it was forwarded. */
    public static final String CLIENT_GONE = dev.idemproxy.core.retry.RetryReason.CLIENT_GONE.spelling();
    private static final Logger LOG = LoggerFactory.getLogger(CallRecorder.class);
    /** In a store outage every call's writes fail: a line per 10 s for each kind, with the count held back. */
    private static final LogThrottle GAVE_UP_LOG = LogThrottle.every(java.time.Duration.ofSeconds(10));

    /** Headers the proxy itself set on the forwarded request; the client's request had its own or none. */
    private static final Set<String> REWRITTEN = caseInsensitive("Host", "X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host");

    private final ReceiptStore receipts;
    private final DeadLetterStore deadLetters;
    private final Redactor redactor;
    private final Clock clock;
    /** The jitter of the pauses between tries of a write the store did not take. */
    private final RandomGenerator random;
    private final dev.idemproxy.core.metrics.ProxyMetrics metrics;
    /** Where a settled call's receipt and dead letter are written, and tried again while the store fails. */
    private final StoreWrites writes;

    /**
     * @param receipts    null: nothing is recorded
     * @param deadLetters the same backend's dead letters; null exactly when {@code receipts} is
     * @param redactor    which headers are credentials
     * @param random      the jitter of the pauses between tries of a write the store did not take
     */
    public CallRecorder(ReceiptStore receipts, DeadLetterStore deadLetters, Redactor redactor, Clock clock,
            RandomGenerator random, dev.idemproxy.core.metrics.ProxyMetrics metrics) {
        this.random = random;
        this.writes = new StoreWrites(random);
        if ((receipts == null) != (deadLetters == null)) {
            throw new IllegalArgumentException("receipts and deadLetters: both or neither (expected: one backend's stores)");
        }
        this.receipts = receipts;
        this.deadLetters = deadLetters;
        this.metrics = metrics;
        refreshDeadLetterCount();
        this.clock = clock;
        this.redactor = java.util.Objects.requireNonNull(redactor, "redactor");
    }

    /** The retrier of the call's writes, the record's end included. */
    StoreWrites writes() {
        return writes;
    }

    /** Sets {@code idemproxy_dlq_entries} from the store's own count (entries deleted through the admin API included). */
    public void refreshDeadLetterCount() {
        if (deadLetters != null) {
            deadLetters.deadLetterCount().whenComplete((n, err) -> {
                if (err == null) {
                    metrics.deadLetters(n);
                }
            });
        }
    }

    public Instant now() {
        return clock.instant();
    }

    /** The receipt of a call that has started (PROCESSING), for the claim to write with its record; null without a store. */
    public ReceiptPut startReceipt(ProxyCall call, CallIdentity id, Instant createdAt) {
        if (receipts == null) {
            return null;
        }
        return new ReceiptPut(new Receipt(id.callId(), id.bizId(), id.key(), call.route().name(), PROCESSING, null, 0, 0,
                createdAt, null, call.label()).withDetail(id.taskId(), CallTries.NONE, null), call.route().idempotency().ttl());
    }

    /** Writes the receipt of a call that has started, when its claim did not (a call without a record). */
    public void started(ProxyCall call, CallIdentity id, Instant createdAt) {
        ReceiptPut r = startReceipt(call, id, createdAt);
        if (r != null) {
            write(receipts.putReceipt(r.receipt(), r.ttl()), id, "receipt");
        }
    }

    /**
     * Ends the receipt of a call whose client left before it was forwarded (its claim, which wrote
     * the PROCESSING receipt, was released): FAILED, reason {@code client_gone}, no attempts. Tried
     * again while the store fails, as a settled call's is: else it would read PROCESSING for good.
     */
    public void abandoned(EventLoop loop, ProxyCall call, CallIdentity id, Instant createdAt) {
        if (receipts != null) {
            put(loop, call, new Receipt(id.callId(), id.bizId(), id.key(), call.route().name(), FAILED, CLIENT_GONE, 0, 0,
                    createdAt, clock.instant(), call.label()).withDetail(id.taskId(), CallTries.NONE, heads(call, null)));
        }
    }

    /**
     * Ends the receipt of a call answered at the gate with the outcome of the call it repeats
     * ({@code known}), after one of its claims took the record for a while (and wrote its receipt
     * PROCESSING): SUCCESS or FAILED as that outcome's status is, reason {@code replayed}. Tried
     * again while the store fails.
     */
    void replayedAtGate(EventLoop loop, ProxyCall call, CallIdentity id, Instant createdAt, ClaimResult known) {
        if (receipts == null) {
            return;
        }
        int status = known instanceof ClaimResult.Completed c ? c.response().status() : ((ClaimResult.NotRetained) known).status();
        int attempts = known instanceof ClaimResult.Completed c ? c.attempts() : ((ClaimResult.NotRetained) known).attempts();
        boolean executed = OutcomeClass.ofStatus(status) == OutcomeClass.EXECUTED;
        put(loop, call, new Receipt(id.callId(), id.bizId(), id.key(), call.route().name(), executed ? SUCCESS : FAILED,
                "replayed", status, attempts, createdAt, clock.instant(), call.label()));
    }

    /** As {@link #replayedAtGate}, for a call refused at the gate with {@code problem}: FAILED, the problem's name as reason. */
    void refusedAtGate(EventLoop loop, ProxyCall call, CallIdentity id, Instant createdAt, Problem problem) {
        if (receipts == null) {
            return;
        }
        put(loop, call, new Receipt(id.callId(), id.bizId(), id.key(), call.route().name(), FAILED, problem.spelling(),
                problem.status(), 0, createdAt, clock.instant(), call.label()));
    }

    /** Writes the final receipt {@code r} of a call answered without forwarding, kept as long as its route's records; tried again while the store fails. */
    private void put(EventLoop loop, ProxyCall call, Receipt r) {
        writes.write(loop, () -> receipts.putReceipt(r, call.route().idempotency().ttl()), r.callId(), "receipt");
    }

    /**
     * Writes the dead letter of a call that ended unsuccessfully and, when {@code writeReceipt}, its
     * final receipt; returns that receipt (null without a store), which otherwise the call's
     * call's {@link Recording} writes with its record. Must be called before the call's body is
     * released: a dead letter keeps a copy.
     *
     * @param owner the owner token of the call's claim of {@code recordKey} (null: a call without a
     *              record), kept in its dead letter so that a release fences exactly this execution
     */
    ReceiptPut settled(EventLoop loop, ProxyCall call, CallIdentity id, RecordKey recordKey, String owner, Instant createdAt,
            CallSettlement s, boolean writeReceipt) {
        if (receipts == null) {
            return null;
        }
        RetryDecision d = s.decision();
        boolean failed = s.truncated() || d == null || d.deadLetter();
        String reason = s.reason();
        Instant now = clock.instant();
        // A not-executed answer handed back (a 429 past maxRetryAfter, a 408 not retried) is no
        // dead letter, by design, but no success either: a receipt check reading SUCCESS would
        // answer from a result that never was.
        boolean notExecuted = d != null && d.outcome() == OutcomeClass.NOT_EXECUTED;
        Receipt receipt = new Receipt(id.callId(), id.bizId(), id.key(), call.route().name(),
                failed || notExecuted ? FAILED : SUCCESS, reason, s.finalStatus(), s.attempts(), createdAt, now, call.label())
                .withDetail(id.taskId(), s.tries(), heads(call, s));
        java.time.Duration ttl = call.route().idempotency().ttl();
        if (writeReceipt) {
            writes.write(loop, () -> receipts.putReceipt(receipt, ttl), id.callId(), "receipt");
        }
        if (failed && call.route().deadLetter().enabled()) {
            RecordKey rk = recordKey != null ? recordKey : new RecordKey(call.route().name(), "-", id.key() == null ? "" : id.key());
            DeadLetter entry = new DeadLetter(CallId.next(clock, random), id.callId(), id.taskId(), id.bizId(), rk, reason, s.finalStatus(),
                    s.attempts(), now, snapshot(call), owner);
            writes.write(loop, () -> deadLetters.addDeadLetter(entry).thenRun(metrics::deadLetterAdded), id.callId(), "dead letter");
        }
        return new ReceiptPut(receipt, ttl);
    }

    /**
     * The call's request head and the head of the answer its client got (its status alone when
     * the answer was not kept; none when {@code s} is null), as they may be shown, for its receipt.
     */
    private CallHeads heads(ProxyCall call, CallSettlement s) {
        StoredResponse r = s == null ? null : s.response();
        return CallHeads.of(call.request().method().name(), call.pathAndQuery(), call.originalHost(),
                call.request().headers()::iteratorCharSequence, s == null ? 0 : r == null ? s.finalStatus() : r.status(),
                s == null ? null : r == null ? List.<StoredHeader>of() : r.headers(), StoredHeader::name, StoredHeader::value, redactor);
    }

    private static Set<String> caseInsensitive(String... names) {
        TreeSet<String> s = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        s.addAll(List.of(names));
        return s;
    }

    private StoredRequest snapshot(ProxyCall call) {
        Set<String> keep = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        keep.addAll(call.route().deadLetter().keepHeaders());
        List<StoredHeader> headers = new ArrayList<>();
        if (call.originalHost() != null) {
            headers.add(new StoredHeader("Host", call.originalHost()));
        }
        for (Map.Entry<String, String> h : call.request().headers()) {
            if (REWRITTEN.contains(h.getKey())) {
                continue;
            }
            boolean secret = redactor.isSecretHeader(h.getKey()) && !keep.contains(h.getKey());
            headers.add(new StoredHeader(h.getKey(), secret ? REDACTED : h.getValue()));
        }
        byte[] body = call.body() == null ? new byte[0] : ByteBufUtil.getBytes(call.body());
        // The target as the client sent it (the forwarded one carries the upstream's base path), so a
        // replay through the proxy matches the same route.
        return new StoredRequest(call.request().method().name().toUpperCase(Locale.ROOT), call.pathAndQuery(), headers, body);
    }

    private static void write(java.util.concurrent.CompletionStage<?> op, CallIdentity id, String what) {
        op.whenComplete((v, err) -> {
            if (err != null) {
                long held = GAVE_UP_LOG.pass();
                if (held >= 0) {
                    LOG.error("[call={}] could not write the {}: {}{}", id.callId(), what, err.toString(), LogThrottle.more(held));
                }
            }
        });
    }
}
