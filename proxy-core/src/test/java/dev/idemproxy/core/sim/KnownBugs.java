package dev.idemproxy.core.sim;

/**
 * Real bugs the simulation found in today's engine and left to the rewrite of the protected call
 * (issue #42), each recognised by its exact signature so that the run reports it apart instead
 * of failing: the invariants stay as strict as they are, a different break in the same place
 * still fails, and {@code SimulationTest.fixedBugsStayFixedAndTheTakeoverChainStillReproduces} says which are fixed.
 * Stateless.
 */
final class KnownBugs {
    /**
     * A takeover asks the receipt endpoint only about the call it took the record from. When leases
     * lapse under live owners (the store holds their renewals up), takeovers chain: A executes, B
     * takes A's lapsed claim over, learns A's outcome (or stores it as ambiguous) but its own end is
     * refused as C has taken B's lapsed claim over meanwhile; C asks about B only, hears NOT_FOUND
     * and executes again (seed 8179; seed 888775 with an abandoned takeover in the chain, which
     * the engine now carries on instead of leaving in flight). Fixing it needs the record to carry
     * the call that may have run across takeovers. Recognised as: a replay of, or an execution
     * after, a call none of whose ends succeeded.
     *
     * <p>Fixed and kept as regressions ({@code SimulationTest.fixedBugsStayFixed}): waiters answered
     * from an outcome whose write was then refused (seeds 59, 2834: the waiter whose claim took the
     * record now keeps the owner's outcome in it), and an abandoned claim's release tried only once
     * (seed 8449: tried again while the store fails, {@code StoreWrites}).
     */
    static final String OUTCOME_BEFORE_WRITE = "takeover-chain";

    /**
     * Fixed (seed 8449), kept as a signature so that it would be told apart should it come back:
     * a claim that was never forwarded (its client left before the claim was answered,
     * {@code Claiming.releaseOrphanedClaim}, whose failure {@code Claiming.released} only logs; or a
     * waiter's poll that claimed a key its owner had settled here, the fresh claim "ours to undo",
     * released without looking at the answer) is released once, and a release the store fails is
     * not tried again (before the rewrite, the same in {@code ClaimAttempt}): the key stays claimed by a call that never ran until its lease lapses,
     * and the next duplicate takes it over as an unknown outcome (takeover_unknown: 504
     * ambiguous-outcome stored for a call that never executed; on a route with a receipt
     * endpoint, a receipt check first). Recognised as a claim whose only ends were releases, one or
     * two, none of which the store applied. First seen: seed 652.
     */
    static final String ORPHAN_RELEASE_NOT_RETRIED = "orphan-release-not-retried";

    private KnownBugs() {}

    /** Whether the call {@code ownerCallId} held a claim and no end of it succeeded (refused, or never applied). */
    static boolean outcomeBeforeWrite(World w, String ownerCallId) {
        Claims.Claim owner = w.claims.claimOf(ownerCallId);
        return owner != null && owner.successfulEnds() == 0;
    }
}
