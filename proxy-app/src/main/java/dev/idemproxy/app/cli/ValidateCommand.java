package dev.idemproxy.app.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Placeholder: the config helper replaces this with the real verb. */
@Command(name = "validate", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Check a config file; print one line per problem, or the effective route table.")
public final class ValidateCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        return IdemproxyCommand.RUNTIME_FAILURE;
    }
}
