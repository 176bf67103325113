package dev.idemproxy.core.call;

import dev.idemproxy.core.metrics.CallOutcome;

/**
 * What a dialect keeps of its calls' lives ({@link CallDialect}): plain HTTP keeps nothing, so
 * the defaults do nothing.
 */
public interface CallLifecycle {

    /**
     * A protected call has begun: its gate is claiming it ({@link ProxyCall#startInDialect}).
     * {@link #settled} follows exactly once.
     */
    default void started(ProxyCall call) {
    }

    /** A protected call that {@link #started} has ended, however: answered, replayed, refused, or its client gone first. */
    default void settled(ProxyCall call) {
    }

    /** Counts the call's end in the dialect's own metrics (as {@link CallLog} counts it in the request total). */
    default void finished(ProxyCall call, CallOutcome outcome) {
    }
}
