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

        Claim(String owner, String callId, RecordKey key, int proxy, boolean takeover) {
            this.owner = owner;
            this.callId = callId;
            this.key = key;
            this.proxy = proxy;
            this.takeover = takeover;
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

    void stored(String callId, dev.idemproxy.core.store.StoredResponse response) {
        stored.put(callId, response);
    }

    /** What the completion of {@code callId} stored, or null. */
    dev.idemproxy.core.store.StoredResponse storedBy(String callId) {
        return stored.get(callId);
    }

    void claimed(String owner, String callId, RecordKey key, int proxy, boolean takeover) {
        Claim c = new Claim(owner, callId, key, proxy, takeover);
        byOwner.put(owner, c);
    }

    void answered(String owner) {
        Claim c = byOwner.get(owner);
        if (c != null) {
            c.answered = true;
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

    /** The last end {@code owner} issued reached the engine with an answer. */
    void endAnswered(String owner) {
        Claim c = byOwner.get(owner);
        if (c != null) {
            c.lastEndAnswered = true;
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
