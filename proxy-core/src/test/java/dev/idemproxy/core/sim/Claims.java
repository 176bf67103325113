package dev.idemproxy.core.sim;

import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.RecordKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every claim the engine was told it holds, and how each ended, as the store saw it: the facts
 * the claim invariants are checked against. A claim is known by its owner token. Not thread-safe:
 * one simulation thread.
 */
final class Claims {
    enum End { STORED, RELEASED, REFUSED }

    static final class Claim {
        final String owner;
        final String callId;
        final RecordKey key;
        final int proxy;
        final boolean takeover;
        /** The engine was told it holds the claim (not a lost answer). */
        boolean answered;
        int endsIssued;
        int releasesIssued;
        /** The last end issued was answered to the engine (not failed before its write, nor its answer lost). */
        boolean lastEndAnswered;
        final List<End> ends = new ArrayList<>(2);
        /** When the store applied the claim (simulated nanoseconds). */
        final long atNanos;
        /** Where the embedded store's log ended when the claim, and its last end answered, were answered (-1: not, or not that store). */
        long claimMark = -1;
        long endMark = -1;
        /** The last end answered to the engine, as the store applied it (REFUSED: not applied), or null. */
        End answeredEnd;
        /** What this claim's completion stored, or null; and the call it named (its own, or the owner's outcome a waiter kept). */
        dev.idemproxy.core.store.StoredResponse storedResponse;
        String storedCallId;

        Claim(String owner, String callId, RecordKey key, int proxy, boolean takeover, long atNanos) {
            this.owner = owner;
            this.callId = callId;
            this.key = key;
            this.proxy = proxy;
            this.takeover = takeover;
            this.atNanos = atNanos;
        }

        long successfulEnds() {
            return ends.stream().filter(e -> e != End.REFUSED).count();
        }

        @Override
        public String toString() {
            return "claim " + owner + " of call " + callId + " on " + key.id() + " (proxy " + proxy + (takeover ? ", takeover" : "")
                    + ", ends issued " + endsIssued + ": " + ends + ")";
        }
    }

    private final Map<String, Claim> byOwner = new LinkedHashMap<>();
    /** Call ids the store told the engine it claimed for (forwarded under a claim). */
    private final Map<String, Claim> byCall = new HashMap<>();
    private final List<String> violations = new ArrayList<>();
    /** What each call's completion stored, by call id (the record itself may expire before the run ends). */
    private final Map<String, dev.idemproxy.core.store.StoredResponse> stored = new HashMap<>();

    void stored(String owner, String callId, dev.idemproxy.core.store.StoredResponse response) {
        stored.put(callId, response);
        Claim c = byOwner.get(owner);
        if (c != null) {
            c.storedResponse = response;
            c.storedCallId = callId;
        }
    }

    /** What the completion of {@code callId} stored, or null. */
    dev.idemproxy.core.store.StoredResponse storedBy(String callId) {
        return stored.get(callId);
    }

    void claimed(String owner, String callId, RecordKey key, int proxy, boolean takeover, long atNanos) {
        Claim c = new Claim(owner, callId, key, proxy, takeover, atNanos);
        byOwner.put(owner, c);
    }

    /** The engine was told it holds the claim; {@code mark} where the embedded store's log ended then (-1: another store). */
    void answered(String owner, long mark) {
        Claim c = byOwner.get(owner);
        if (c != null) {
            c.answered = true;
            c.claimMark = mark;
            byCall.put(c.callId, c);
        }
    }

    void endIssued(String owner, End end) {
        Claim c = byOwner.get(owner);
        if (c != null) {
            c.endsIssued++;
            c.lastEndAnswered = false;
            if (end == End.RELEASED) {
                c.releasesIssued++;
            }
        }
    }

    /**
     * An end applied: {@code before} is the record as it was, {@code done} what the store answered.
     * An end that succeeded over a record another owner held, or one already ended, broke the fencing.
     */
    void ended(String owner, End end, IdempotencyRecord before, boolean done) {
        Claim c = byOwner.get(owner);
        if (done && before != null && (before.state() != IdempotencyRecord.State.IN_FLIGHT || !before.owner().equals(owner))) {
            violations.add("fencing: the end (" + end + ") of " + (c == null ? owner : c) + " succeeded over a record "
                    + before.state() + " held by " + before.owner());
        }
        if (c != null) {
            c.ends.add(done ? end : End.REFUSED);
        }
    }

    /** Whether a claim made after {@code c} took its record over. */
    boolean takenOverLater(Claim c) {
        boolean after = false;
        for (Claim x : byOwner.values()) {
            if (x == c) {
                after = true;
            } else if (after && x.takeover && x.key.equals(c.key)) {
                return true;
            }
        }
        return false;
    }

    /** The last end {@code owner} issued reached the engine with an answer ({@code done}: applied); {@code mark} as for a claim. */
    void endAnswered(String owner, End end, boolean done, long mark) {
        Claim c = byOwner.get(owner);
        if (c != null) {
            c.lastEndAnswered = true;
            c.answeredEnd = done ? end : End.REFUSED;
            c.endMark = mark;
        }
    }

    /**
     * Whether an answered claim of a proxy that did not crash has issued an end that the engine
     * has not had an answer to yet (it may try again).
     */
    boolean endPending(java.util.function.IntPredicate crashed) {
        for (Claim c : byOwner.values()) {
            if (c.answered && !crashed.test(c.proxy) && c.endsIssued > 0 && !c.lastEndAnswered) {
                return true;
            }
        }
        return false;
    }

    /** The claim made under {@code owner}, or null. */
    Claim byOwner(String owner) {
        return byOwner.get(owner);
    }

    /** The claim the engine was told it holds for {@code callId}, or null. */
    Claim claimOf(String callId) {
        return byCall.get(callId);
    }

    boolean forwardedUnderClaim(String callId) {
        return byCall.containsKey(callId);
    }

    Iterable<Claim> all() {
        return byOwner.values();
    }

    List<String> violations() {
        return violations;
    }
}
