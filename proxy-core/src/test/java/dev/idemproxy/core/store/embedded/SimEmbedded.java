package dev.idemproxy.core.store.embedded;

/**
 * The simulation's way to what a crash does to the embedded store ({@link EmbeddedStore}'s
 * package-private {@code abandon}): the process died, its directory lock is let go, nothing more
 * is written. Stateless.
 */
public final class SimEmbedded {
    private SimEmbedded() {}

    public static void abandon(EmbeddedStore store) {
        store.abandon();
    }
}
