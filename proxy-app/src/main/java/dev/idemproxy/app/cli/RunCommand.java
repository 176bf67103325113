package dev.idemproxy.app.cli;

import dev.idemproxy.app.config.ConfigProblem;
import dev.idemproxy.app.config.InvalidConfigException;
import dev.idemproxy.app.config.YamlConfigLoader;
import dev.idemproxy.app.wiring.Assembly;
import dev.idemproxy.app.wiring.ConfigWatcher;
import dev.idemproxy.app.wiring.Signals;
import dev.idemproxy.app.wiring.StartupException;
import dev.idemproxy.core.ProxyConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code idemproxy run}: loads the config, starts the proxy and admin listener, reloads on
 * SIGHUP or a change of the file, drains and exits 0 on SIGTERM. Returns only once stopped.
 */
@Command(name = "run", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Run the proxy (the default verb).",
        footer = {"", "Examples:",
                "  idemproxy run --config config/idemproxy.yaml",
                "  IDEMPROXY_ADMIN_TOKEN=s3cret idemproxy --config /etc/idemproxy/idemproxy.yaml --log-format json",
                "  idemproxy run --log-level DEBUG        (or IDEMPROXY_LOG_LEVEL=DEBUG)",
                "", "Signals: SIGTERM drains in-flight calls (shutdown.grace) and exits 0; SIGHUP reloads the routes."})
public final class RunCommand implements Callable<Integer> {

    /**
     * Options shared by {@code run} and the bare {@code idemproxy} command, so they may come before
     * or after the verb ({@code idemproxy --config F run} is {@code idemproxy run --config F}).
     * Null means not given: the defaults are applied by {@link #config()} and {@link #logFormat()}.
     */
    public static final class Options {
        static final String DEFAULT_CONFIG = "idemproxy.yaml";
        static final String DEFAULT_LOG_FORMAT = "text";

        @Option(names = {"-c", "--config"}, paramLabel = "FILE",
                description = "Config file (default: ./" + DEFAULT_CONFIG + "; without it the proxy starts with no routes).")
        public Path config;

        @Option(names = "--log-format", paramLabel = "text|json", description = "Log format: text (default) or json.")
        public String logFormat;

        @Option(names = "--log-level", paramLabel = "LEVEL",
                description = "Log level: TRACE, DEBUG, INFO (default), WARN or ERROR; else $" + LogSetup.LEVEL_ENV + ".")
        public String logLevel;

        /** These options, each not given here taken from {@code outer} (the options before the verb). */
        Options orElse(Options outer) {
            Options o = new Options();
            o.config = config != null ? config : outer.config;
            o.logFormat = logFormat != null ? logFormat : outer.logFormat;
            o.logLevel = logLevel != null ? logLevel : outer.logLevel;
            return o;
        }

        /** The file given, or null for the default (./idemproxy.yaml, which may be absent). */
        Path config() {
            return config;
        }

        String logFormat() {
            return logFormat != null ? logFormat : DEFAULT_LOG_FORMAT;
        }
    }

    @Mixin
    Options options;

    /** The bare command, whose options (given before the verb) apply when not repeated after it; null when run alone. */
    @CommandLine.ParentCommand
    IdemproxyCommand parent;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final CountDownLatch stopSignal = new CountDownLatch(1);

    public RunCommand() {
        this(new Options());
    }

    RunCommand(Options options) {
        this.options = options;
    }

    RunCommand(Options options, CommandLine.Model.CommandSpec spec) {
        this.options = options;
        this.spec = spec;
    }

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        Options effective = parent == null ? options : options.orElse(parent.runOptions);
        if (!LogSetup.apply(effective.logFormat(), err)
                || !LogSetup.level(effective.logLevel, System.getenv(LogSetup.LEVEL_ENV), err)) {
            return IdemproxyCommand.USAGE;
        }
        Path file = effective.config() != null ? effective.config() : Path.of(Options.DEFAULT_CONFIG);
        YamlConfigLoader loader = new YamlConfigLoader();
        ProxyConfig config;
        if (effective.config() == null && !Files.exists(file)) {
            err.println("idemproxy: no config file at ./" + Options.DEFAULT_CONFIG + "; starting with an empty route table");
            config = ProxyConfig.empty();
            file = null;
        } else {
            try {
                config = loader.load(file);
            } catch (InvalidConfigException e) {
                for (ConfigProblem p : e.problems()) {
                    err.println(p);
                }
                return IdemproxyCommand.USAGE;
            }
        }
        return runUntilStopped(config, file, loader, "json".equals(effective.logFormat()), err);
    }

    private int runUntilStopped(ProxyConfig config, Path file, YamlConfigLoader loader, boolean json, PrintWriter err) {
        Assembly assembly;
        try {
            assembly = Assembly.start(config, file, loader, json);
        } catch (StartupException e) {
            err.println("idemproxy: " + e.getMessage());
            return IdemproxyCommand.RUNTIME_FAILURE;
        }
        Signals.install(stopSignal::countDown, assembly::reload);
        ConfigWatcher watcher = null;
        if (file != null) {
            try {
                watcher = new ConfigWatcher(file, assembly::reload);
            } catch (IOException e) {
                err.println("idemproxy: cannot watch " + file + " for changes (SIGHUP still reloads): " + e.getMessage());
            }
        }
        try {
            stopSignal.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (watcher != null) {
            watcher.close();
        }
        assembly.stop(config.shutdownGrace());
        return IdemproxyCommand.OK;
    }
}
