package dev.idemproxy.app.cli;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The top-level command. {@code run} is the default verb: {@code idemproxy --config F} runs it.
 * Its options may also come before a verb that takes them ({@code idemproxy --config F validate}
 * is {@code idemproxy validate --config F}; given on both sides, the one after the verb wins);
 * before a verb that does not take them they are a usage error, never silently ignored.
 * Exit codes: 0 ok, 1 runtime failure, 2 usage or config error.
 */
@Command(name = "idemproxy",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "A sidecar HTTP proxy that makes an agent's tool calls safe to retry.",
        subcommands = {RunCommand.class, ValidateCommand.class, DemoCommand.class, DemoUpstreamCommand.class, DlqCommand.class,
                ReceiptsCommand.class, CallsCommand.class, CaCommand.class,
                CommandLine.HelpCommand.class},
        footer = {"", "Examples:",
                "  idemproxy demo",
                "  idemproxy run --config config/idemproxy.yaml",
                "  idemproxy validate --config config/idemproxy.yaml",
                "  idemproxy dlq list --admin http://127.0.0.1:9901",
                "  idemproxy receipts get --biz-id order-42",
                "  idemproxy ca cert --config config/idemproxy.yaml"})
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
        cl.setExecutionStrategy(IdemproxyCommand::execute);
        cl.setExecutionExceptionHandler((ex, line, parseResult) -> {
            line.getErr().println("idemproxy: " + ex.getMessage());
            return RUNTIME_FAILURE;
        });
        return cl;
    }

    /**
     * Runs the parsed command line as picocli's {@link CommandLine.RunLast} does, after refusing
     * an option given before a verb that has no such option (say {@code --config} before {@code dlq}).
     */
    private static int execute(CommandLine.ParseResult root) {
        if (root.hasSubcommand()) {
            CommandLine.Model.CommandSpec verb = root.subcommand().commandSpec();
            for (CommandLine.Model.OptionSpec given : root.matchedOptions()) {
                if (!given.usageHelp() && !given.versionHelp() && verb.findOption(given.longestName()) == null) {
                    throw new CommandLine.ParameterException(verb.commandLine(), given.longestName() + " does not apply to '"
                            + verb.name() + "' (expected: a verb that takes it: " + verbsTaking(root.commandSpec(), given) + ")");
                }
            }
        }
        return new CommandLine.RunLast().execute(root);
    }

    private static String verbsTaking(CommandLine.Model.CommandSpec root, CommandLine.Model.OptionSpec option) {
        Set<String> verbs = new LinkedHashSet<>();
        for (CommandLine sub : root.subcommands().values()) {
            if (sub.getCommandSpec().findOption(option.longestName()) != null) {
                verbs.add(sub.getCommandName());
            }
        }
        return String.join(", ", verbs);
    }

    @Override
    public Integer call() {
        return new RunCommand(runOptions, spec).call();
    }
}
