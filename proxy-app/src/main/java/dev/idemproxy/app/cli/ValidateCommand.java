package dev.idemproxy.app.cli;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.app.config.ConfigDescriber;
import dev.idemproxy.app.config.ConfigProblem;
import dev.idemproxy.app.config.InvalidConfigException;
import dev.idemproxy.app.config.YamlConfigLoader;
import dev.idemproxy.core.ProxyConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code idemproxy validate}: checks a config file. Prints {@code FILE: OK}, the effective route
 * table, for each protected route where its keys come from and what scopes them (for an MCP route,
 * which tools it protects too), and with {@code forwardProxy} each intercepted host with the CA's
 * files (exit 0), or
 * one {@code FILE:LINE:COL: path: message} line per problem on stderr (exit 2).
 */
@Command(name = "validate", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Check a config file; print one line per problem, or the effective route table, where each"
                + " protected route's keys come from (an MCP route's: which tools it protects), and each intercepted host"
                + " with the CA's files.",
        footer = {"", "Exit codes: 0 valid, 2 invalid or unreadable."})
public final class ValidateCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = {"-c", "--config"}, paramLabel = "FILE",
            description = "Config file (default: " + RunCommand.Options.DEFAULT_CONFIG + "). May also come before the verb.")
    Path config;

    /** The bare command, whose {@code --config} (given before the verb) applies when none follows it. */
    @ParentCommand
    IdemproxyCommand parent;

    private final YamlConfigLoader loader;

    public ValidateCommand() {
        this(new YamlConfigLoader());
    }

    ValidateCommand(YamlConfigLoader loader) {
        this.loader = requireNonNull(loader, "loader");
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Path config = this.config != null ? this.config
                : parent != null && parent.runOptions.config() != null ? parent.runOptions.config()
                : Path.of(RunCommand.Options.DEFAULT_CONFIG);
        try {
            ProxyConfig loaded = loader.load(config);
            out.println(config + ": OK");
            out.println(ConfigDescriber.routeTable(loaded));
            List<String> keySources = ConfigDescriber.keySources(loaded);
            if (!keySources.isEmpty()) {
                out.println();
                keySources.forEach(out::println);
            }
            List<String> interception = ConfigDescriber.interception(loaded);
            if (!interception.isEmpty()) {
                out.println();
                interception.forEach(out::println);
            }
            out.flush();
            return IdemproxyCommand.OK;
        } catch (InvalidConfigException e) {
            for (ConfigProblem p : e.problems()) {
                err.println(p);
            }
            err.flush();
            return IdemproxyCommand.USAGE;
        }
    }
}
