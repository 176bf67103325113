package dev.idemproxy.app.wiring;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

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
            SignalHandler previous = Signal.handle(new Signal(name), s -> {
                LOG.info("received SIG{}", name);
                action.run();
            });
            if (previous == SignalHandler.SIG_IGN) {
                // The JVM keeps a signal its parent ignored (nohup ignores SIGHUP) ignored: the
                // handler is registered but never runs.
                LOG.warn("SIG{} was ignored when this process started (nohup?), so it stays ignored: {}", name,
                        name.equals("HUP") ? "reload by changing the config file instead" : "stop the proxy with another signal");
            }
        } catch (IllegalArgumentException e) {
            LOG.warn("cannot handle SIG{} on this platform: {}", name, e.getMessage());
        }
    }
}
