package dev.idemproxy.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The root command's options ({@code -c/--config}, {@code --log-format}) work before the verb as
 * after it, through the same entry point as {@code Main}; before a verb that does not take them
 * they are a usage error rather than silently ignored.
 */
class RootOptionsTest {
    private static final String VALID = "src/test/resources/config/valid/contract-example.yaml";
    private static final String INVALID = "src/test/resources/config/invalid/max-attempts-zero.yaml";
    private static final String INVALID_LINE = INVALID + ":5:20: routes[0].retry.maxAttempts: 0 (expected: >= 1)";

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void configBeforeValidateIsTheFileValidated() {
        assertThat(cli("--config", VALID, "validate")).as(err.toString()).isEqualTo(IdemproxyCommand.OK);
        assertThat(lines(out)[0]).isEqualTo(VALID + ": OK");

        assertThat(cli("-c", INVALID, "validate")).isEqualTo(IdemproxyCommand.USAGE);
        assertThat(lines(err)).containsExactly(INVALID_LINE);
    }

    @Test
    void configAfterTheVerbWinsOverOneBeforeIt() {
        assertThat(cli("--config", INVALID, "validate", "--config", VALID)).isEqualTo(IdemproxyCommand.OK);
        assertThat(lines(out)[0]).isEqualTo(VALID + ": OK");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void configBeforeRunIsTheFileRun() {
        // An invalid file makes run exit 2 before it starts anything; without the root option
        // reaching run, it would start on ./idemproxy.yaml (or no routes) instead.
        int exit = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> cli("--config", INVALID, "run"));

        assertThat(exit).isEqualTo(IdemproxyCommand.USAGE);
        assertThat(lines(err)).containsExactly(INVALID_LINE);
    }

    @Test
    void logFormatBeforeRunIsTheFormatUsed() {
        // The format is checked first: a bogus one before the verb must stop run before it reads the file.
        int exit = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> cli("--log-format", "yaml", "run", "--config", INVALID));

        assertThat(exit).isEqualTo(IdemproxyCommand.USAGE);
        assertThat(lines(err)).containsExactly("idemproxy: --log-format 'yaml' (expected: text or json)");
    }

    @Test
    void aLogLevelThatIsNoLevelStopsRunBeforeItReadsTheFileAfterOrBeforeTheVerb() {
        int exit = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> cli("run", "--log-level", "LOUD", "--config", INVALID));
        assertThat(exit).isEqualTo(IdemproxyCommand.USAGE);
        assertThat(lines(err)).containsExactly("idemproxy: --log-level 'LOUD' (expected: TRACE, DEBUG, INFO, WARN or ERROR)");

        exit = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> cli("--log-level", "verbose", "run", "--config", INVALID));
        assertThat(exit).isEqualTo(IdemproxyCommand.USAGE);
        assertThat(lines(err)).containsExactly("idemproxy: --log-level 'verbose' (expected: TRACE, DEBUG, INFO, WARN or ERROR)");
    }

    @Test
    void aLogLevelFromTheEnvironmentThatIsNoLevelIsSaidByItsName() {
        StringWriter said = new StringWriter();
        assertThat(LogSetup.level(null, "noisy", new PrintWriter(said, true))).isFalse();
        assertThat(said.toString().strip())
                .isEqualTo("idemproxy: IDEMPROXY_LOG_LEVEL 'noisy' (expected: TRACE, DEBUG, INFO, WARN or ERROR)");
        assertThat(LogSetup.level(null, " ", new PrintWriter(said, true))).as("blank: not set").isTrue();
        assertThat(LogSetup.level(null, null, new PrintWriter(said, true))).isTrue();
    }

    @Test
    void aRootOptionBeforeAVerbThatDoesNotTakeItIsAUsageError() {
        assertThat(cli("--config", VALID, "dlq", "list")).isEqualTo(IdemproxyCommand.USAGE);
        assertThat(lines(err)[0]).isEqualTo("--config does not apply to 'dlq' (expected: a verb that takes it: run, validate, ca)");

        err.getBuffer().setLength(0);
        assertThat(cli("--log-format", "json", "validate", "--config", VALID)).isEqualTo(IdemproxyCommand.USAGE);
        assertThat(lines(err)[0]).isEqualTo("--log-format does not apply to 'validate' (expected: a verb that takes it: run)");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void helpBeforeAVerbIsStillTheRootHelp() {
        assertThat(cli("--help", "validate")).isEqualTo(IdemproxyCommand.OK);
        assertThat(out.toString()).contains("-c, --config=FILE").contains("validate");
    }

    private int cli(String... args) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        var cl = IdemproxyCommand.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    private static String[] lines(StringWriter w) {
        String s = w.toString().replace("\r\n", "\n").stripTrailing();
        return s.isEmpty() ? new String[0] : s.split("\n");
    }
}
