package dev.idemproxy.app.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The top-level command. {@code run} is the default verb: {@code idemproxy --config F} runs it.
 * Exit codes: 0 ok, 1 runtime failure, 2 usage or config error.
 */
@Command(name = "idemproxy",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "A sidecar HTTP proxy that makes an agent's tool calls safe to retry.",
        subcommands = {RunCommand.class, ValidateCommand.class, DemoCommand.class, DemoUpstreamCommand.class, DlqCommand.class,
                ReceiptsCommand.class,
                CommandLine.HelpCommand.class},
        footer = {"", "Examples:",
                "  idemproxy demo",
                "  idemproxy run --config config/idemproxy.yaml",
                "  idemproxy validate --config config/idemproxy.yaml",
                "  idemproxy dlq list --admin http://127.0.0.1:9901",
                "  idemproxy receipts get --biz-id order-42"})
public final class IdemproxyCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    RunCommand.Options runOptions = new RunCommand.Options();

    /** Exit codes shared by every verb. */
    public static final int OK = 0;
    public static final int RUNTIME_FAILURE = 1;
    public static final int USAGE = 2;

    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new IdemproxyCommand());
        cl.setExitCodeExceptionMapper(t -> t instanceof CommandLine.ParameterException ? USAGE : RUNTIME_FAILURE);
        cl.setExecutionExceptionHandler((ex, line, parseResult) -> {
            line.getErr().println("idemproxy: " + ex.getMessage());
            return RUNTIME_FAILURE;
        });
        return cl;
    }

    @Override
    public Integer call() {
        return new RunCommand(runOptions, spec).call();
    }
}
