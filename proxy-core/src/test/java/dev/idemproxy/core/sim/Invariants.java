package dev.idemproxy.core.sim;

import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.StorePolicy;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What must hold after every run (docs/testing.md, "The deterministic simulation", lists them
 * with their exact definitions): nothing executed twice unless a retry was allowed; every claim
 * ended once; every request answered once; every replay equal to its stored outcome; receipts
 * and dead letters agreeing with outcomes (or their writes given up after every try); an embedded
 * store reopened after a crash replaying every answered call ({@link ReopenCheck}); budgets never spent below zero; no leaked buffer; no engine task that
 * threw. Writes after close and fencing are judged as they happen ({@link SimChannel},
 * {@link Claims}). Stateless.
 */
final class Invariants {
    private static final Set<String> HARMLESS_METHODS = Set.of("GET", "HEAD", "OPTIONS", "PUT", "DELETE");
    private static final long WINDOW_MILLIS = 10 * 60 * 1000;

    private Invariants() {}

    static void check(World w) {
        w.trace.thrownByTasks().forEach(t -> w.violation("an engine task threw: " + t));
        w.claims.violations().forEach(w::violation);
        executedAtMostOnce(w);
        claimsEnded(w);
        Answers.check(w);
        receipts(w);
        deadLetters(w);
        if (w.embedded != null) {
            w.embedded.checkAfterRun();
        }
        budgets(w);
        if (!w.anyCrash()) {
            List<String> leaks = w.alloc.leaks();
            if (!leaks.isEmpty()) {
                w.violation(leaks.size() + " leaked buffer(s), the first: " + leaks.get(0));
            }
        }
    }

    /**
     * Each execution of an intent after its first must have been allowed: a repeat is harmless
     * (route tagged idempotent, an idempotent method, an MCP tool hinted idempotent once a
     * tools/list was seen), or the earlier call's receipt answered NOT_FOUND before, or either
     * execution was of a call forwarded without a claim (pass-through: the store did not answer
     * under onUnavailable: passthrough, or the call is not protected), or the intent's window had
     * passed, or a power loss took either call's claim (the embedded store under {@code interval}).
     */
    private static void executedAtMostOnce(World w) {
        for (Map.Entry<String, List<Ledger.Execution>> e : w.ledger.byIntent().entrySet()) {
            List<Ledger.Execution> l = e.getValue();
            for (Ledger.Execution x : l) {
                // Every POST and PUT on /orders is protected: under onUnavailable: reject none runs without a claim.
                if (x.route().equals(SimRoutes.ORDERS) && w.onUnavailable == StorePolicy.OnUnavailable.REJECT && unprotected(w, x)) {
                    w.violation("executed without a claim: " + x);
                }
            }
            for (int i = 1; i < l.size(); i++) {
                Ledger.Execution before = l.get(i - 1);
                Ledger.Execution now = l.get(i);
                boolean allowed = harmless(w, now) || unprotected(w, before) || unprotected(w, now)
                        || w.ledger.notFoundBefore(before.callId(), now.atMillis()) || w.ledger.notFoundBefore(now.callId(), now.atMillis())
                        || now.atMillis() - l.get(0).atMillis() > WINDOW_MILLIS
                        || (w.embedded != null && w.embedded.claimLost(before, now));
                if (!allowed) {
                    w.violation("executed twice: " + e.getKey() + ": " + before + " then " + now);
                }
            }
        }
    }

    private static boolean harmless(World w, Ledger.Execution e) {
        return w.routeTagged(e.route()) || HARMLESS_METHODS.contains(e.method())
                || ("set_flag".equals(e.tool()) && e.hintsSeen());
    }

    private static boolean unprotected(World w, Ledger.Execution e) {
        return e.callId() == null || !w.claims.forwardedUnderClaim(e.callId());
    }

    /** Every claim the engine held, on a proxy that did not crash, ended once: stored, released, or refused (fenced). */
    private static void claimsEnded(World w) {
        for (Claims.Claim c : w.claims.all()) {
            if (!c.answered || w.crashed(c.proxy)) {
                continue;
            }
            if (c.ends.isEmpty() && c.endsIssued > 0 && c.releasesIssued == c.endsIssued && c.endsIssued < 3) {
                w.knownBug(KnownBugs.ORPHAN_RELEASE_NOT_RETRIED, c.toString());
            } else if (c.ends.isEmpty() && !(c.takeover && c.endsIssued == 0 && (heldBy(w, c) || w.claims.takenOverLater(c) || absent(w, c)))) {
                w.violation("a claim never ended: " + c);
            } else if (c.successfulEnds() > 1) {
                w.violation("a claim ended more than once: " + c);
            }
        }
    }

    /**
     * A takeover whose client left before its claim was answered is left in flight on purpose
     * (Claiming: the earlier owner may have executed, so the record waits for the next
     * duplicate's takeover rules): still held by it at the end, taken over again by a later
     * duplicate, or expired, it is not a claim that never ended. (KnownBugs.OUTCOME_BEFORE_WRITE leaves such a
     * takeover too; it was caught by the replay it answered, seed 8179, fixed.)
     */
    private static boolean absent(World w, Claims.Claim c) {
        return w.read(w.shared.records().get(c.key)).isEmpty();
    }

    private static boolean heldBy(World w, Claims.Claim c) {
        IdempotencyRecord r = w.read(w.shared.records().get(c.key)).orElse(null);
        return r != null && r.state() == IdempotencyRecord.State.IN_FLIGHT && r.owner().equals(c.owner);
    }

    /**
     * The receipt of every call that ended under a claim (on a proxy that did not crash) is
     * final, not PROCESSING; a SUCCESS receipt has a status of the executed class; and a plain
     * HTTP call whose record it completed has a receipt with the record's status (an MCP route
     * stores the proxy's errors as JSON-RPC errors in HTTP 200, its receipt keeps the problem's).
     */
    private static void receipts(World w) {
        for (Claims.Claim c : w.claims.all()) {
            if (!c.answered || w.crashed(c.proxy) || c.ends.isEmpty()) {
                continue;
            }
            Receipt r = w.read(w.shared.receipts().receipt(c.callId)).orElse(null);
            if (r == null || r.status().equals("PROCESSING")) {
                WriteLedger.Writes tries = w.writes.of(WriteLedger.Kind.RECEIPT, c.callId);
                if (tries == null || !tries.gaveUp()) {
                    w.violation("the receipt of an ended call is " + (r == null ? "missing" : "PROCESSING") + ": " + c
                            + (tries == null ? "" : "; its receipt writes: " + tries));
                }
                continue;
            }
            int s = r.httpStatus();
            if (r.status().equals("SUCCESS") && (s >= 500 || s == 408 || s == 409 || s == 425 || s == 429)) {
                w.violation("a SUCCESS receipt with status " + s + ": " + c);
            }
            IdempotencyRecord rec = w.read(w.shared.records().get(c.key)).orElse(null);
            if (c.key.route().equals(SimRoutes.ORDERS) && c.ends.contains(Claims.End.STORED) && rec != null && rec.callId().equals(c.callId)
                    && rec.state() != IdempotencyRecord.State.IN_FLIGHT && rec.status() != s) {
                w.violation("the receipt says " + s + " but the record " + rec.status() + ": " + c);
            }
        }
    }

    /**
     * Every dead letter the engine set out to write is in the store, unless the store failed every
     * try of it (the engine gave up, as {@code StoreWrites} documents); and a call with a dead letter
     * never has a SUCCESS receipt.
     */
    private static void deadLetters(World w) {
        w.writes.deadLetters().forEach((callId, tries) -> {
            if (tries.gaveUp() || w.crashed(tries.proxy)) {
                return;
            }
            if (!tries.written || w.read(w.shared.deadLetters().deadLetter(tries.entryId)).isEmpty()) {
                w.violation("the dead letter of call " + callId + " is not in the store: its writes " + tries);
                return;
            }
            Receipt r = w.read(w.shared.receipts().receipt(callId)).orElse(null);
            if (r != null && r.status().equals("SUCCESS")) {
                w.violation("call " + callId + " has a dead letter and a SUCCESS receipt");
            }
        });
    }

    /** X-Retry-Budget-Remaining is never negative; a task never retried more than its budget while its counter answered. */
    private static void budgets(World w) {
        for (SimClient c : w.clients) {
            for (SimClient.Sent s : c.sent()) {
                for (HttpBytes.Message m : s.answers) {
                    String left = m.header("X-Retry-Budget-Remaining");
                    if (left != null && Long.parseLong(left) < 0) {
                        w.violation("a task budget below zero: " + m.line() + " X-Retry-Budget-Remaining: " + left);
                    }
                }
            }
        }
        // a power loss under the embedded store's interval sync may take the last second's charges
        if (w.faults.failTask() == 0 && (w.embedded == null || !w.embedded.lostUnforced())) {
            w.ledger.retriesByTask().forEach((task, n) -> {
                if (n > w.tasks.maxRetries()) {
                    w.violation("task " + task + " made " + n + " retries, its budget is " + w.tasks.maxRetries());
                }
            });
        }
    }
}
