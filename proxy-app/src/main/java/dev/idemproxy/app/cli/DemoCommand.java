package dev.idemproxy.app.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import dev.idemproxy.app.config.DurationParser;
import dev.idemproxy.app.config.InvalidConfigException;
import dev.idemproxy.app.demo.Demo;
import dev.idemproxy.app.demo.DemoReport;
import dev.idemproxy.app.demo.DemoSettings;
import dev.idemproxy.app.wiring.StartupException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code idemproxy demo}: a flaky tickets service, an agent that times out and retries, run once
 * through the proxy (embedded store in a temp directory) and once direct; prints the two side by
 * side. Needs nothing else running. Exit 0 when no intent executed twice through the proxy, else 1.
 * {@code idemproxy demo serve} runs the tickets service alone ({@link DemoServeCommand}).
 */
@Command(name = "demo", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        subcommands = DemoServeCommand.class,
        description = {"Show idemproxy at work, with nothing else running: a flaky, non-idempotent tickets service,"
                + " an agent that times out and retries, once through idemproxy and once direct."},
        footer = {"", "Exit codes: 0 no intent executed twice through idemproxy, 1 otherwise (a bug) or a runtime failure,"
                + " 2 bad options.", "See docs/demo.md for how to read the table.",
                "'idemproxy demo serve' runs the tickets service alone, to try idemproxy by hand."})
public final class DemoCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "42", description = "Seed of the fault plan (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--intents", paramLabel = "N", defaultValue = "40", description = "Tool calls the agent makes (default: ${DEFAULT-VALUE}).")
    int intents;

    @Option(names = "--agent-timeout", paramLabel = "DURATION", defaultValue = "300ms",
            description = "How long the agent waits for each response (default: ${DEFAULT-VALUE}).")
    String agentTimeout;

    @Option(names = "--retries", paramLabel = "N", defaultValue = "3", description = "Agent retries per intent (default: ${DEFAULT-VALUE}).")
    int retries;

    @Option(names = "--concurrency", paramLabel = "N", defaultValue = "8", description = "Intents in flight at once (default: ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--verbose", description = "Also print the proxy's log (one line per call).")
    boolean verbose;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        DemoSettings settings;
        try {
            settings = new DemoSettings(seed, intents, DurationParser.parse(agentTimeout), retries, concurrency);
        } catch (IllegalArgumentException e) {
            err.println("idemproxy demo: " + e.getMessage());
            err.flush();
            return IdemproxyCommand.USAGE;
        }
        out.println("Running the demo twice with seed " + seed + ": through idemproxy, then straight at the service...");
        out.flush();
        long started = System.nanoTime();
        Level before = verbose ? null : quietLogs(Level.WARN);
        Demo.Outcome outcome;
        try {
            outcome = Demo.run(settings);
        } catch (StartupException | InvalidConfigException e) {
            err.println("idemproxy demo: cannot start the proxy: " + e.getMessage());
            err.flush();
            return IdemproxyCommand.RUNTIME_FAILURE;
        } finally {
            if (before != null) {
                quietLogs(before);
            }
        }
        out.println();
        out.print(DemoReport.format(outcome));
        out.printf("%nBoth runs took %.1f s. Run your own: bin/idemproxy run --config config/idemproxy.yaml%n",
                Duration.ofNanos(System.nanoTime() - started).toMillis() / 1000.0);
        out.flush();
        return outcome.viaProxy().duplicateExecutions() == 0 ? IdemproxyCommand.OK : IdemproxyCommand.RUNTIME_FAILURE;
    }

    /** Sets the root log level (the proxy logs a line per call at INFO); returns the previous one. */
    private static Level quietLogs(Level level) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext)) {
            return null;
        }
        Logger root = ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        Level previous = root.getLevel();
        root.setLevel(level);
        return previous;
    }
}
