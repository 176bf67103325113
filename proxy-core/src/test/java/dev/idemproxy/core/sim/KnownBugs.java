package dev.idemproxy.core.sim;

/**
 * Real bugs the simulation found in today's engine and left to the rewrite of the protected call
 * (issue #42), each recognised by its exact signature so that the run reports it apart instead
 * of failing: the invariants stay as strict as they are, a different break in the same place
 * still fails, and {@code SimulationTest.knownBugsStillReproduce} says when one is fixed.
 * Stateless.
 */
final class KnownBugs {
    /**
     * Duplicates waiting in this process are answered from their owner's outcome before its
     * write is known to have succeeded: {@code Recording.end} marks the key settling
     * ({@code InFlightWaiters.settling}) before the write, and a waiter whose poll answers in
     * between takes the mark ({@code Claiming.answered}, the branch "A waiter's poll: the owner
     * here may have settled meanwhile"; before the rewrite, {@code RecordedProtection.settle} and
     * {@code ClaimAttempt.onClaim}). When the owner's lease had lapsed (its renewals held up
     * in the store) and another claim took the record, the write is refused (fenced) and the
     * waiters got an outcome no record holds: later duplicates get the record's other answer (a
     * 504 ambiguous-outcome stored by a takeover, seed 5881; another execution's response, seed
     * 3299). When the other claim is the waiter's own poll, it is then dropped: a fresh claim is
     * released, so the key is free and the next duplicate executes the call again (seed 2834: a
     * POST executed twice), and a takeover is kept, never ended, and lapses.
     * The same when the owner's write keeps failing: its renewals stopped when it settled, so its
     * lease lapses while the write is tried again, and a harmless duplicate takes the record over
     * and runs (seed 33316: waiters were replayed the owner's 504, the record keeps a PUT's 201).
     * Recognised as: a replay of, or an execution after, a call none of whose ends succeeded.
     */
    static final String OUTCOME_BEFORE_WRITE = "outcome-before-write";

    /**
     * A claim that was never forwarded (its client left before the claim was answered,
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
