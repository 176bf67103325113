package dev.idemproxy.core.sim;

/**
 * Real bugs the simulation found, each recognised by its exact signature so that a run would
 * report it apart instead of failing while it is being fixed: the invariants stay as strict as
 * they are, and a different break in the same place still fails. None is open today;
 * {@code SimulationTest.fixedBugsStayFixed} replays the seeds of those fixed.
 *
 * <p>Fixed and kept as regressions: the takeover chain (seeds 8179, 888775: a takeover asked the
 * receipt endpoint only about the call it took the record from; records now carry every prior
 * owner across takeovers, and a takeover asks about each); a waiter's answer from an outcome whose
 * write a further takeover refused (seeds 214625, 227385, 234716, 240458: it now answers once its
 * write is taken); waiters answered from an outcome whose write was then refused (seeds 59, 2834);
 * an abandoned claim's release tried only once (seed 8449, below).
 * Stateless.
 */
final class KnownBugs {
    /**
     * Fixed (seed 8449), kept as a signature so that it would be told apart should it come back:
     * a claim that was never forwarded (its client left before the claim was answered,
     * {@code OrphanedClaim.release}, whose failure {@code OrphanedClaim.released} once only logged; or a
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
}
