package dev.idemproxy.core.call;

import java.util.EnumSet;
import java.util.Set;

/**
 * Where a {@link ProtectedCall} stands (docs/architecture.md draws them). While it forwards, its
 * attempts have phases of their own ({@link Forwarding.Phase}). Each phase names the phases it
 * may move to; the call checks every move against them.
 */
public enum CallPhase {
    /** Answered by the gate from the store: a duplicate of a completed call. Final. */
    REPLAYED,
    /** Answered by the gate with a problem (409, 422, 503): nothing was forwarded. Final. */
    REFUSED,
    /** Its client left before it was forwarded; a claim that still succeeds is released (a takeover goes on). */
    ABANDONED,
    /** The answer's end went out after the record was written; the call is over once it is on the wire. Final. */
    ANSWERED,
    /** It settled: its record's end is being written; the answer's end waits for that write. */
    RECORDING(ANSWERED),
    /** Its attempts run ({@link Forwarding}): it holds the record, or runs without one. */
    FORWARDING(RECORDING),
    /** A duplicate of a call in flight: waits for its owner to settle (woken here, else polling the store). */
    WAITING(REPLAYED, REFUSED, ABANDONED),
    /** Its claim (or a poll of the store while it waits) is on its way to the store. */
    CLAIMING(WAITING, FORWARDING, REPLAYED, REFUSED, ABANDONED),
    /** Planned by the gate: about to claim its record, or to forward without one. */
    PLANNED(CLAIMING, FORWARDING);

    static {
        for (CallPhase p : values()) {
            p.next = p.targets.length == 0 ? EnumSet.noneOf(CallPhase.class) : EnumSet.copyOf(java.util.Arrays.asList(p.targets));
        }
        ABANDONED.next.add(FORWARDING);  // a takeover whose client left: only it knows which earlier call may have run
        CLAIMING.next.add(CLAIMING);  // the legacy fingerprint's second claim
        WAITING.next.add(CLAIMING);  // a poll, or the owner released the key
    }

    private final CallPhase[] targets;
    private Set<CallPhase> next;

    CallPhase(CallPhase... targets) {
        this.targets = targets;
    }

    /** The phases this one may move to. */
    public Set<CallPhase> next() {
        return java.util.Collections.unmodifiableSet(next);
    }

    public boolean canMoveTo(CallPhase p) {
        return next.contains(p);
    }

    /** A final phase: nothing follows. */
    public boolean isFinal() {
        return next.isEmpty();
    }
}
