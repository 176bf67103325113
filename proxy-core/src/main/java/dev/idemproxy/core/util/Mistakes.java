package dev.idemproxy.core.util;

import java.util.EnumSet;
import java.util.Set;

/**
 * Mistakes planted on purpose, for the deterministic simulation to prove that it finds them
 * (docs/testing.md): a set injected where the engine is built ({@code CallServices}, the memory
 * store, the embedded store's seams), empty in production ({@link #NONE}), read at one line each where the mistake would be
 * made. This class is immutable.
 */
public final class Mistakes {
    /** The mistakes that can be planted. */
    public enum Mistake {
        /** A call that ends on an unknown outcome releases its key instead of storing the outcome. */
        RELEASE_UNKNOWN_OUTCOME,
        /** The memory store completes a record whatever its owner token (no fencing on completion). */
        SKIP_FENCING_ON_COMPLETE,
        /** A call the claim refused (409, 422, 503) gets its refusal written twice. */
        ANSWER_TWICE,
        /**
         * The embedded store answers a batch of operations before their frames are written to the
         * log (the write follows in a task of its own): a crash in between loses acknowledged writes.
         */
        EMBEDDED_ANSWER_BEFORE_WRITE
    }

    public static final Mistakes NONE = new Mistakes(EnumSet.noneOf(Mistake.class));

    private final Set<Mistake> planted;

    private Mistakes(Set<Mistake> planted) {
        this.planted = planted;
    }

    public static Mistakes of(Mistake first, Mistake... rest) {
        return new Mistakes(EnumSet.of(first, rest));
    }

    public boolean has(Mistake m) {
        return planted.contains(m);
    }

    @Override
    public String toString() {
        return planted.toString();
    }
}
