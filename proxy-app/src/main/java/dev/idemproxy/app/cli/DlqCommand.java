package dev.idemproxy.app.cli;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code idemproxy dlq list|show ID|replay ID|delete ID}: the dead-letter queue of a running
 * proxy, through its admin API (docs/operations.md, docs/admin-api.md).
 */
@Command(name = "dlq", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Inspect, replay and delete dead-letter entries of a running proxy.",
        subcommands = {DlqCommand.Listing.class, DlqCommand.Show.class, DlqCommand.Replay.class,
                DlqCommand.Delete.class},
        footer = {"", "Examples:",
                "  idemproxy dlq list --limit 20",
                "  idemproxy dlq show 01J9Z…",
                "  idemproxy dlq replay 01J9Z…",
                "  idemproxy dlq delete 01J9Z… --release",
                "", "Exit codes: 0 ok, 1 not found / server error / unreachable, 2 usage error."})
final class DlqCommand implements Callable<Integer> {
    /** A replay goes through the proxy's retries; give it time. */
    static final Duration REPLAY_TIMEOUT = Duration.ofMinutes(3);

    @Spec
    CommandSpec spec;

    /** Without a verb: usage on stderr, exit 2. */
    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing verb (expected: list, show, replay or delete)");
    }

    @Command(name = "list", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "List entries, oldest first; pass --cursor the nextCursor to see the next page.")
    static final class Listing implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        AdminOptions admin = new AdminOptions();

        @Mixin
        PageOptions page = new PageOptions();

        @Override
        public Integer call() {
            String path = "/dlq?" + page.query(spec);
            return AdminCall.run(spec, admin, "GET", path, AdminCall.TIMEOUT);
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Show one entry with its stored request.")
    static final class Show implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        AdminOptions admin = new AdminOptions();

        @Parameters(index = "0", paramLabel = "ID", description = "The entry's id.")
        String id;

        @Override
        public Integer call() {
            return AdminCall.run(spec, admin, "GET", "/dlq/" + AdminClient.segment(id), AdminCall.TIMEOUT);
        }
    }

    @Command(name = "replay", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Re-send the entry's request through the proxy with the same idempotency key: a 2xx answer"
                    + " removes the entry. A call whose key the proxy generated gets a new key.")
    static final class Replay implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        AdminOptions admin = new AdminOptions();

        @Parameters(index = "0", paramLabel = "ID", description = "The entry's id.")
        String id;

        @Override
        public Integer call() {
            return AdminCall.run(spec, admin, "POST", "/dlq/" + AdminClient.segment(id) + "/replay", REPLAY_TIMEOUT);
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Delete the entry; with --release also release its idempotency key.")
    static final class Delete implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        AdminOptions admin = new AdminOptions();

        @Parameters(index = "0", paramLabel = "ID", description = "The entry's id.")
        String id;

        @Option(names = "--release", description = "Also release the key, so the next duplicate executes.")
        boolean release;

        @Override
        public Integer call() {
            String path = "/dlq/" + AdminClient.segment(id) + (release ? "?release=true" : "");
            int exit = AdminCall.run(spec, admin, "DELETE", path, AdminCall.TIMEOUT);
            if (exit == IdemproxyCommand.OK) {
                Map<String, Object> done = new LinkedHashMap<>();
                done.put("id", id);
                done.put("deleted", true);
                done.put("released", release);
                AdminCall.print(spec.commandLine().getOut(), done);
            }
            return exit;
        }
    }
}
