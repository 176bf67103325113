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

    /** The proxy's signals: TERM and INT stop it, HUP reloads its config. */
    public static void install(Runnable onStop, Runnable onReload) {
        handle("TERM", onStop, "the proxy");
        handle("INT", onStop, "the proxy");
        handle("HUP", onReload, "the proxy");
    }

    /** TERM and INT stop {@code what} (say "the tickets service"), which has nothing to reload. */
    public static void installStop(String what, Runnable onStop) {
        handle("TERM", onStop, what);
        handle("INT", onStop, what);
    }

    private static void handle(String name, Runnable action, String what) {
        try {
            SignalHandler previous = Signal.handle(new Signal(name), s -> {
                LOG.info("received SIG{}", name);
                action.run();
            });
            if (previous == SignalHandler.SIG_IGN) {
                // The JVM keeps a signal its parent ignored (nohup ignores SIGHUP; a shell script
                // starts a command with & with SIGINT ignored) ignored: the handler never runs.
                LOG.warn("SIG{} was ignored when this process started (nohup, or started with & by a script),"
                        + " so it stays ignored: {}", name, name.equals("HUP") ? "reload by changing the config file instead"
                        : "stop " + what + " with SIG" + (name.equals("TERM") ? "INT" : "TERM") + " (kill PID)");
            }
        } catch (IllegalArgumentException e) {
            LOG.warn("cannot handle SIG{} on this platform: {}", name, e.getMessage());
        }
    }
}
