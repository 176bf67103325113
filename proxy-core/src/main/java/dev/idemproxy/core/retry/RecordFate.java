package dev.idemproxy.core.retry;

/**
 * What becomes of a protected call's idempotency record when the call stops
 * ({@link RetryDecision}): kept with the answer, replayed to every duplicate, or released so the
 * next duplicate executes afresh.
 */
public enum RecordFate {
    /** Complete the record with this answer; duplicates get it replayed. */
    STORE,
    /** Release the claim: the outcome is safe to repeat, and the next duplicate executes. */
    RELEASE
}
