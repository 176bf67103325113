package dev.idemproxy.core.sim;

import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.StoredResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The invariant "the embedded store reopened after a crash replays every answered call", judged
 * as the store opens again and at the end of the run. What the store answered before the crash is
 * in {@link Claims} with where its log ended then; a process crash must keep all of it, a power
 * loss what had been forced by then ({@code always} forces before it answers, {@code interval}
 * once a second). Kept means: an answered completion comes back completed by the same owner with
 * the same response, an answered release never comes back in flight, an answered claim never comes
 * back as a fresh key (unless it was released, or taken over later, since); and every call a
 * client was answered before the crash whose completion was kept is sent once more to the new
 * process, which must answer it as a replay of that call (the bytes are {@link Answers}'s to
 * judge). A claim a power loss took is noted (its intent may run again, {@link Invariants}), and
 * a completion it took (a replay answered from it before the crash stands on what it stored,
 * {@link Answers}; a takeover keeps the intent from running again).
 * Records that may have expired (claimed more than nine minutes before: a derived key's window is
 * ten) are not judged. Not thread-safe.
 */
final class ReopenCheck {
    private static final long MAY_HAVE_EXPIRED_NANOS = 9L * 60 * 1_000_000_000L;

    private final World w;
    /** Calls whose claim a power loss took (as {@code interval} allows), and those whose answered completion it took. */
    private final Set<String> lostClaims = new java.util.HashSet<>();
    private final Set<String> lostCompletions = new java.util.HashSet<>();
    /** Completed records kept, by the call id their replays name: the response stored. */
    private final Map<String, StoredResponse> kept = new HashMap<>();
    /** Intents sent again after the reopen, by intent, and the call each must replay. */
    private final Map<Intent, String> expected = new LinkedHashMap<>();
    private SimClient again;

    ReopenCheck(World w, SimLogFiles before, SimEmbeddedStore reopened, SimLogFiles.Crash crash, int proxy) {
        this.w = w;
        boolean power = crash == SimLogFiles.Crash.POWER;
        for (Claims.Claim c : w.claims.all()) {
            if (c.proxy != proxy || !c.answered) {
                continue;
            }
            if (power && !before.durable(c.claimMark)) {
                lostClaims.add(c.callId);
                if (c.storedCallId != null) {
                    lostCompletions.add(c.storedCallId);
                }
                continue;
            }
            if (w.time.nanos() - c.atNanos > MAY_HAVE_EXPIRED_NANOS) {
                continue;
            }
            boolean endKept = c.lastEndAnswered && c.answeredEnd != Claims.End.REFUSED && (!power || before.durable(c.endMark));
            if (!endKept && c.storedCallId != null) {
                lostCompletions.add(c.storedCallId);  // not forced: what was answered from it may be gone
            }
            IdempotencyRecord r = reopened.await(reopened.stores().records().get(c.key)).orElse(null);
            String what = judge(c, r, endKept);
            if (what != null) {
                w.violation("the embedded store reopened after a crash (" + crash + ") lost " + what + ": " + c + "; the record is now "
                        + (r == null ? "absent" : r.state() + " of " + r.owner() + ", call " + r.callId()));
            }
        }
    }

    /** What of {@code c} the reopened record {@code r} lost, or null; {@code endKept}: its answered end must be there. */
    private String judge(Claims.Claim c, IdempotencyRecord r, boolean endKept) {
        boolean mine = r != null && r.owner().equals(c.owner);
        if (endKept && c.answeredEnd == Claims.End.STORED) {
            if (!mine || r.state() == IdempotencyRecord.State.IN_FLIGHT) {
                return "the completion it answered";
            }
            if (c.storedResponse != null) {
                StoredResponse s = r.response();
                if (s == null || s.status() != c.storedResponse.status() || !Arrays.equals(s.body(), c.storedResponse.body())) {
                    return "the response it stored";
                }
                kept.put(r.callId(), s);
            }
            return null;
        }
        if (endKept && c.answeredEnd == Claims.End.RELEASED) {
            return mine && r.state() == IdempotencyRecord.State.IN_FLIGHT ? "the release it answered" : null;
        }
        boolean mayBeGone = c.releasesIssued > 0 || w.claims.takenOverLater(c);
        return r == null && !mayBeGone ? "the claim it answered (the key is fresh again)" : null;
    }

    /** The calls whose claims the power loss took: their intents may run again. */
    Set<String> lostClaims() {
        return lostClaims;
    }

    /** The calls whose answered completions the power loss took: replays answered from them before stand on what they stored. */
    Set<String> lostCompletions() {
        return lostCompletions;
    }

    /**
     * Sends, once, every intent a client was answered before the crash by a call whose completed
     * record was kept, to the new process, on a client of its own that neither times out nor retries.
     * A plain HTTP call without a stable key (no client key, no derivation) is a new call each time
     * and is not sent; nor is a call of a tool the proxy may have learnt is read-only.
     */
    void sendAgain() {
        for (SimClient c : w.clients) {
            for (SimClient.Sent s : c.sent()) {
                HttpBytes.Message m = s.answers.isEmpty() || s.answers.get(0).cut() ? null : s.answers.get(0);
                String callId = m == null ? null : m.header("X-Call-Id");
                StoredResponse stored = callId == null ? null : kept.get(callId);
                // the answer was the stored response (not a refusal naming the call, such as a key reused with another body: 422)
                boolean answeredIt = stored != null && m.status() == stored.status()
                        && (s.intent.mcp() || Arrays.equals(m.body(), stored.body()));
                if (answeredIt && stableKey(s.intent)) {
                    expected.putIfAbsent(s.intent, callId);
                }
            }
        }
        if (!expected.isEmpty()) {
            again = SimClient.patient(w, w.random.split(), new ArrayList<>(expected.keySet()));
            w.clients.add(again);
            again.start(0);
        }
    }

    private boolean stableKey(Intent i) {
        if (i.mcp() && UpstreamBehaviour.READ_ONLY_TOOL.equals(i.tool()) && w.ledger.toolsWereListed()) {
            // the proxy may have learnt it is read-only since (its tools/list answered): then it is not
            // protected, and a call of it is a new call each time (seed 1083722)
            return false;
        }
        return i.mcp() || i.clientKey() != null || !w.route(SimRoutes.ORDERS).idempotency().key().derive().isEmpty();
    }

    /** Every intent sent again was answered as a replay of the call kept for it. */
    void afterRun() {
        if (again == null) {
            return;
        }
        for (SimClient.Sent s : again.sent()) {
            String callId = expected.get(s.intent);
            HttpBytes.Message m = s.answers.isEmpty() ? null : s.answers.get(0);
            if (m != null && !m.cut() && !("true".equals(m.header("Idempotent-Replayed")) && callId.equals(m.header("X-Call-Id")))) {
                w.violation("the embedded store reopened after a crash did not replay call " + callId + " to " + s.intent + ": got "
                        + m.line() + " (X-Call-Id " + m.header("X-Call-Id") + ", Idempotent-Replayed " + m.header("Idempotent-Replayed") + ")");
            }
        }
    }
}
