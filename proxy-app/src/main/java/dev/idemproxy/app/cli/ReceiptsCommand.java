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
 * {@code idemproxy receipts get CALL_ID | --biz-id BIZ}: receipts of a running proxy, through its
 * admin API (docs/operations.md, docs/admin-api.md).
 */
@Command(name = "receipts", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Look up the receipts of protected calls in a running proxy.",
        subcommands = {ReceiptsCommand.Get.class},
        footer = {"", "Examples:",
                "  idemproxy receipts get 01J9Z…",
                "  idemproxy receipts get --biz-id order-42",
                "", "Exit codes: 0 ok, 1 not found / server error / unreachable, 2 usage error."})
final class ReceiptsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    /** Without a verb: usage on stderr, exit 2. */
    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing verb (expected: get)");
    }

    @Command(name = "get", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "One receipt by call id, or every receipt of a business id (oldest first).")
    static final class Get implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        AdminOptions admin = new AdminOptions();

        @Parameters(index = "0", arity = "0..1", paramLabel = "CALL_ID", description = "The call's id (X-Call-Id).")
        String callId;

        @Option(names = "--biz-id", paramLabel = "BIZ", description = "A business id (X-Biz-Id) instead of a call id.")
        String bizId;

        @Option(names = "--limit", paramLabel = "N", defaultValue = "100",
                description = "With --biz-id: at most this many receipts, 1..500 (default: ${DEFAULT-VALUE}).")
        int limit;

        @Override
        public Integer call() {
            if ((callId == null) == (bizId == null)) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "give either CALL_ID or --biz-id BIZ (expected: exactly one of them)");
            }
            if (limit < 1 || limit > 500) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--limit " + limit + " (expected: 1..500)");
            }
            String path = callId != null
                    ? "/receipts/" + AdminClient.segment(callId)
                    : "/receipts?bizId=" + AdminClient.query(bizId) + "&limit=" + limit;
            return AdminCall.run(spec, admin, "GET", path, AdminCall.TIMEOUT);
        }
    }
}
