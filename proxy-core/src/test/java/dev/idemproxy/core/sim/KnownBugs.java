package dev.idemproxy.core.sim;

import dev.idemproxy.core.store.IdempotencyRecord;

/**
 * Real bugs the simulation found in today's engine and left to the rewrite of the protected call
 * (issue #42), each recognised by its exact signature so that the run reports it apart instead
 * of failing: the invariants stay as strict as they are, a different break in the same place
 * still fails, and {@code SimulationTest.knownBugsStillReproduce} says when one is fixed.
 * Stateless.
 */
final class KnownBugs {
    /**
     * A duplicate waiting on an in-flight call of the same proxy polls the store; the poll's claim
     * takes the record over (the owner's lease lapsed: its renewals were held up), but the owner
     * has meanwhile settled here, so the waiter answers from the owner's outcome (a replay) and
     * keeps the takeover it does not use: it neither completes nor releases it
     * ({@code ClaimAttempt.onClaim}, the branch "A waiter's poll: the owner here may have settled
     * meanwhile", releases a fresh claim only). The owner's end is then refused (fenced: the
     * record is the waiter's), so the outcome its client and the waiter got is never stored; the
     * record lapses again and the next duplicate takes it over as an unknown outcome (504
     * ambiguous-outcome stored on a POST, a second execution on a PUT). First seen: seed 10.
     */
    static final String WAITER_KEPT_TAKEOVER = "waiter-kept-takeover";

    private KnownBugs() {}

    /** The record at the end is in flight under a takeover that never issued an end. */
    static boolean waiterKeptTakeover(World w, IdempotencyRecord rec) {
        Claims.Claim holder = w.claims.byOwner(rec.owner());
        return rec.state() == IdempotencyRecord.State.IN_FLIGHT && holder != null && holder.takeover && holder.endsIssued == 0;
    }
}
