package dev.idemproxy.app.wiring;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * Process signals: TERM and INT start a graceful stop, HUP a reload. Handling TERM ourselves
 * (rather than in a shutdown hook) lets the process drain and then exit 0, as orchestrators
 * expect. {@code sun.misc.Signal} is the JDK's only signal API (module jdk.unsupported).
 */
public final class Signals {
    private static final Logger LOG = LoggerFactory.getLogger(Signals.class);

    private Signals() {}

    public static void install(Runnable onStop, Runnable onReload) {
        handle("TERM", onStop);
        handle("INT", onStop);
        handle("HUP", onReload);
    }

    private static void handle(String name, Runnable action) {
        try {
            Signal.handle(new Signal(name), s -> {
                LOG.info("received SIG{}", name);
                action.run();
            });
        } catch (IllegalArgumentException e) {
            LOG.warn("cannot handle SIG{} on this platform: {}", name, e.getMessage());
        }
    }
}
