package dev.idemproxy.core.sim;

import dev.idemproxy.core.store.IdempotencyRecord;
import java.util.Arrays;

/**
 * The invariants of what clients got: every request sent was answered exactly once, unless its
 * client hung up first or its proxy crashed; a replay ({@code Idempotent-Replayed: true}) has
 * the status and body of the record its call stored (for MCP, but for the JSON-RPC id); the
 * first caller of a plain HTTP call got the body that was stored. Stateless.
 */
final class Answers {
    private Answers() {}

    static void check(World w) {
        java.util.Map<String, byte[]> replays = new java.util.HashMap<>();
        for (SimClient c : w.clients) {
            for (SimClient.Sent s : c.sent()) {
                once(w, s);
                for (HttpBytes.Message m : s.answers) {
                    asStored(w, s, m);
                    sameBytes(w, s, m, replays);
                }
            }
        }
    }

    /** Every replay of one plain HTTP call is the same bytes, head and body. */
    private static void sameBytes(World w, SimClient.Sent s, HttpBytes.Message m, java.util.Map<String, byte[]> replays) {
        String callId = m.header("X-Call-Id");
        if (s.intent.tool() != null || m.cut() || callId == null || !"true".equals(m.header("Idempotent-Replayed"))) {
            return;
        }
        byte[] first = replays.putIfAbsent(callId, m.raw());
        if (first != null && !Arrays.equals(first, m.raw())) {
            w.violation("two replays of call " + callId + " differ: " + new String(first, java.nio.charset.StandardCharsets.ISO_8859_1)
                    + " / " + new String(m.raw(), java.nio.charset.StandardCharsets.ISO_8859_1));
        }
    }

    private static void once(World w, SimClient.Sent s) {
        if (s.answers.size() > 1) {
            w.violation("a request answered " + s.answers.size() + " times: " + s.intent + ": " + s.answers.get(0).line() + ", then "
                    + s.answers.get(1).line());
        } else if (s.answers.isEmpty() && !s.abandoned && !w.crashed(s.proxy)) {
            w.violation((s.closedUnanswered ? "the proxy closed the connection without answering " : "never answered: ") + s.intent);
        }
    }

    private static void asStored(World w, SimClient.Sent s, HttpBytes.Message m) {
        String callId = m.header("X-Call-Id");
        boolean replay = "true".equals(m.header("Idempotent-Replayed"));
        if (callId == null || m.cut()) {
            return;
        }
        Claims.Claim claim = w.claims.claimOf(callId);
        IdempotencyRecord rec = claim == null ? null : w.read(w.shared.records().get(claim.key)).orElse(null);
        boolean lost = w.embedded != null && w.embedded.completionLost(callId);
        if ((rec == null || lost) && w.claims.storedBy(callId) != null) {
            // stored, and expired since (a derived key's window, 10 minutes, can end before a long run does),
            // or lost since at a power loss the sync mode allowed to lose it (the embedded store's interval)
            dev.idemproxy.core.store.StoredResponse was = w.claims.storedBy(callId);
            rec = new IdempotencyRecord(IdempotencyRecord.State.COMPLETED, "-", callId, "-", java.time.Instant.EPOCH,
                    java.time.Instant.EPOCH, java.time.Instant.EPOCH, java.time.Instant.EPOCH, 0, was.status(), was);
        }
        if (rec == null || !rec.callId().equals(callId)) {
            if (replay) {
                w.violation("a replay of call " + callId + ", whose record is " + (rec == null ? "gone" : "another call's") + ": "
                        + m.line());
            }
            return;
        }
        if (rec.state() != IdempotencyRecord.State.COMPLETED) {
            if (replay) {
                w.violation("a replay of call " + callId + ", whose record is " + rec.state() + ": " + m.line());
            }
            return;
        }
        boolean problem = String.valueOf(m.header("Content-Type")).contains("problem");
        boolean plain = s.intent.tool() == null;
        if (!replay && (!plain || problem || m.header("X-Receipt-Status") != null)) {
            return;  // a first answer judged whole, or made by the proxy: stored in its own form
        }
        byte[] stored = rec.response().body();
        boolean same = rec.response().status() == m.status()
                && (plain ? Arrays.equals(stored, m.body()) : withoutId(stored).equals(withoutId(m.body())));
        if (!same) {
            w.violation((replay ? "a replay differs from" : "the first answer differs from") + " the record of call " + callId
                    + ": got " + m.status() + " " + m.text() + ", stored " + rec.response().status() + " "
                    + new String(stored, java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    private static String withoutId(byte[] json) {
        return new String(json, java.nio.charset.StandardCharsets.UTF_8).replaceFirst("\"id\":\\s*\\d+", "\"id\":_");
    }
}
