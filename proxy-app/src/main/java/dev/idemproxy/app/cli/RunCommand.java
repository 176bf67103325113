package dev.idemproxy.app.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Placeholder for the run verb; replaced with the real one by the wiring work. */
@Command(name = "run", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Run the proxy (the default verb).")
public final class RunCommand implements Callable<Integer> {

    /** Options shared by {@code run} and the bare {@code idemproxy} command. */
    public static final class Options {
        @Option(names = {"-c", "--config"}, paramLabel = "FILE", description = "Config file (default: ${DEFAULT-VALUE}).",
                defaultValue = "idemproxy.yaml")
        public Path config;

        @Option(names = "--log-format", paramLabel = "text|json", description = "Log format (default: ${DEFAULT-VALUE}).",
                defaultValue = "text")
        public String logFormat;
    }

    @Mixin
    Options options;

    public RunCommand() {
        this(new Options());
    }

    RunCommand(Options options) {
        this.options = options;
    }

    @Override
    public Integer call() {
        return IdemproxyCommand.RUNTIME_FAILURE;
    }
}
