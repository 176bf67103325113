package dev.idemproxy.app.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code idemproxy calls list [filters] | get CALL_ID}: a running proxy's recent calls and one
 * call's tries, through its admin API (docs/admin-api.md {@code /calls}).
 */
@Command(name = "calls", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "List the recent protected calls of a running proxy, or show one with its tries.",
        subcommands = {CallsCommand.ListCalls.class, CallsCommand.Get.class},
        footer = {"", "Examples:",
                "  idemproxy calls list --route tickets --status FAILED --limit 20",
                "  idemproxy calls get 01J9Z…",
                "", "Exit codes: 0 ok, 1 not found / server error / unreachable, 2 usage error."})
final class CallsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    /** Without a verb: usage on stderr, exit 2. */
    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing verb (expected: list or get)");
    }

    @Command(name = "list", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Recent calls, newest first; every filter given must match.")
    static final class ListCalls implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        AdminOptions admin = new AdminOptions();

        @Option(names = "--route", paramLabel = "ROUTE", description = "Only this route's calls.")
        String route;

        @Option(names = "--status", paramLabel = "STATUS", description = "Only calls in this state: PROCESSING, SUCCESS or FAILED.")
        String status;

        @Option(names = "--biz-id", paramLabel = "BIZ", description = "Only calls with this business id (X-Biz-Id).")
        String bizId;

        @Option(names = "--task", paramLabel = "TASK", description = "Only calls of this task (X-Task-Id).")
        String task;

        @Mixin
        PageOptions page = new PageOptions();

        @Override
        public Integer call() {
            StringBuilder path = new StringBuilder("/calls?").append(page.query(spec));
            append(path, "route", route);
            append(path, "status", status);
            append(path, "bizId", bizId);
            append(path, "task", task);
            return AdminCall.run(spec, admin, "GET", path.toString(), AdminCall.TIMEOUT);
        }

        private static void append(StringBuilder path, String name, String value) {
            if (value != null) {
                path.append('&').append(name).append('=').append(AdminClient.query(value));
            }
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "One call: its receipt, its tries and what followed each, its redacted heads.")
    static final class Get implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        AdminOptions admin = new AdminOptions();

        @Parameters(index = "0", paramLabel = "CALL_ID", description = "The call's id (X-Call-Id).")
        String callId;

        @Override
        public Integer call() {
            return AdminCall.run(spec, admin, "GET", "/calls/" + AdminClient.segment(callId), AdminCall.TIMEOUT);
        }
    }
}
