package dev.idemproxy.core.tries;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A call's tries as kept with its receipt: at most {@link #MAX_KEPT}, the first ones and the
 * last, with the count of those left out between them. This class is immutable.
 *
 * @param tries   the tries kept, in order
 * @param omitted how many tries were left out (after the first {@code MAX_KEPT - 1})
 */
public record CallTries(List<Try> tries, int omitted) {
    /** At most this many tries are kept per call. */
    public static final int MAX_KEPT = 16;
    /** No tries (a call still in flight, or one that never reached the upstream). */
    public static final CallTries NONE = new CallTries(List.of(), 0);

    public CallTries {
        tries = List.copyOf(requireNonNull(tries, "tries"));
        if (tries.size() > MAX_KEPT) {
            throw new IllegalArgumentException(tries.size() + " tries (expected: at most " + MAX_KEPT + ")");
        }
        if (omitted < 0) {
            throw new IllegalArgumentException("omitted " + omitted + " (expected: >= 0)");
        }
    }

    /** Tries made in all, kept or not. */
    public int total() {
        return tries.size() + omitted;
    }

    public boolean isEmpty() {
        return tries.isEmpty() && omitted == 0;
    }
}
