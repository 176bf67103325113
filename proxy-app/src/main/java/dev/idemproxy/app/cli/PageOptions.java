package dev.idemproxy.app.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** A listing verb's page options, as the admin API's listings take them: {@code --limit}, {@code --cursor}. */
final class PageOptions {
    @Option(names = "--limit", paramLabel = "N", defaultValue = "50",
            description = "At most this many per page, 1..500 (default: ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--cursor", paramLabel = "CURSOR", description = "The nextCursor of an earlier page.")
    String cursor;

    /**
     * {@code limit=N}, and {@code &cursor=C} when one was given, for the admin API's query.
     *
     * @throws CommandLine.ParameterException (exit 2) for a limit outside 1..500
     */
    String query(CommandSpec spec) {
        if (limit < 1 || limit > 500) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--limit " + limit + " (expected: 1..500)");
        }
        return "limit=" + limit + (cursor == null ? "" : "&cursor=" + AdminClient.query(cursor));
    }
}
