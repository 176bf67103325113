package dev.idemproxy.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ValidateCommandTest {
    private static final String INVALID = "src/test/resources/config/invalid/";

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void aValidFileIsOkAndPrintsTheRouteTable() {
        int exit = validate("--config", "src/test/resources/config/valid/contract-example.yaml");

        assertThat(exit).isEqualTo(IdemproxyCommand.OK);
        assertThat(lines(out)).containsExactly(
                "src/test/resources/config/valid/contract-example.yaml: OK",
                "ROUTE    MATCH                                                      UPSTREAM                       "
                        + "PROTECTS               ATTEMPTS  TAGS",
                "tickets  host=tickets.internal path=/api/tickets* methods=GET,POST  https://tickets.internal:8443  "
                        + "POST,PUT,PATCH,DELETE  4         idempotent",
                "",
                "route tickets: key from header Idempotency-Key, else derived from [method, path, header:X-Task-Id, "
                        + "body:/userId, body:/faultType] within 10m; scoped by [header:Authorization]");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void anMcpRouteAndAnInterceptedHostAreDescribedAfterTheTable(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("forward.yaml"), ""
                + "forwardProxy: { ca: { cert: ca/ca.crt, key: ca/ca.key } }\n"
                + "routes:\n"
                + "  - name: tools\n"
                + "    match: { pathPrefix: /mcp }\n"
                + "    upstream: http://127.0.0.1:3001\n"
                + "    mcp: { enabled: true, protect: all }\n"
                + "  - name: stripe\n"
                + "    match: { host: api.stripe.com }\n"
                + "    intercept: true\n");

        int exit = validate("-c", file.toString());

        assertThat(exit).isEqualTo(IdemproxyCommand.OK);
        assertThat(lines(out)).endsWith(
                "",
                "route tools (MCP): protects tools/call of every tool; key from header Idempotency-Key, else derived from the"
                        + " tool's name and arguments within 10m; scoped by credential headers [Authorization, Proxy-Authorization,"
                        + " Cookie, X-Api-Key, Api-Key]",
                "",
                "route stripe: intercepts CONNECTs to api.stripe.com, with certificates from the CA " + dir.resolve("ca/ca.crt")
                        + " (key " + dir.resolve("ca/ca.key") + "; not there yet: made at start or by idemproxy ca cert)",
                "forwardProxy: CONNECTs to other hosts tunnelled blind");
        assertThat(Files.exists(dir.resolve("ca"))).as("validate makes no CA").isFalse();
    }

    @Test
    void eachProtectedRouteSaysWhereItsKeysComeFromAndWhatScopesThem(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("keys.yaml"), ""
                + "secretHeaders: [X-Auth-Token]\n"
                + "routes:\n"
                + "  - name: defaults\n"
                + "    match: { pathPrefix: /a }\n"
                + "    upstream: http://127.0.0.1:8081\n"
                + "    idempotency: { enabled: true }\n"
                + "  - name: plain\n"
                + "    match: { pathPrefix: /b }\n"
                + "    upstream: http://127.0.0.1:8081\n"
                + "  - name: own-keys\n"
                + "    match: { pathPrefix: /c }\n"
                + "    upstream: http://127.0.0.1:8081\n"
                + "    idempotency: { enabled: true, key: { header: X-Request-Key, derive: [] }, scope: [] }\n"
                + "  - name: strict\n"
                + "    match: { pathPrefix: /d }\n"
                + "    upstream: http://127.0.0.1:8081\n"
                + "    idempotency: { enabled: true, key: { derive: [body:/orderId], window: 1h, required: true },"
                + " scope: [header:X-Tenant] }\n");

        int exit = validate("-c", file.toString());

        assertThat(exit).isEqualTo(IdemproxyCommand.OK);
        String[] lines = lines(out);
        assertThat(lines[0]).isEqualTo(file + ": OK");
        assertThat(lines).endsWith("",
                "route defaults: key from header Idempotency-Key, else derived from [method, path, body] within 10m; "
                        + "scoped by credential headers [Authorization, Proxy-Authorization, Cookie, X-Api-Key, Api-Key, X-Auth-Token]",
                "route own-keys: key from header X-Request-Key, else generated per call (a client's retry without a key is a new"
                        + " call); scoped by nothing (every caller shares its keys)",
                "route strict: key from header Idempotency-Key, else derived from [body:/orderId] within 1h, else 400 "
                        + "missing-idempotency-key; scoped by [header:X-Tenant]");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void theExampleConfigOfTheRepositoryIsValidAndProtectsItsRoute() {
        Path example = Path.of("..", "config", "idemproxy.yaml");

        int exit = validate("-c", example.toString());

        assertThat(exit).as(err.toString()).isEqualTo(IdemproxyCommand.OK);
        assertThat(lines(out)).containsExactly(
                example + ": OK",
                "ROUTE    MATCH           UPSTREAM               PROTECTS               ATTEMPTS  TAGS",
                "tickets  path=/tickets*  http://127.0.0.1:8081  POST,PUT,PATCH,DELETE  3         -",
                "",
                "route tickets: key from header Idempotency-Key, else derived from [method, path, body] within 10m; "
                        + "scoped by credential headers [Authorization, Proxy-Authorization, Cookie, X-Api-Key, Api-Key]");
    }

    /** docs/security.md: validate's output, valid or not, shows no URL user-info and no secret query value. */
    @Test
    void neitherTheRouteTableNorAProblemLineShowsASecret(@TempDir Path dir) throws Exception {
        Path valid = Files.writeString(dir.resolve("valid.yaml"), "routes:\n  - name: a\n"
                + "    upstream: https://bot:hunter2@api.internal/v1\n");
        assertThat(validate("-c", valid.toString())).isEqualTo(IdemproxyCommand.OK);
        assertThat(out.toString()).contains("https://***@api.internal/v1").doesNotContain("hunter2");

        Path invalid = Files.writeString(dir.resolve("invalid.yaml"), "secretQueryParams: [sig]\nroutes:\n  - name: a\n"
                + "    upstream: http://127.0.0.1:8081\n"
                + "    receipt: { url: \"ftp://u:pw9@api.internal/r?sig=s1g\" }\n");
        assertThat(validate("-c", invalid.toString())).isEqualTo(IdemproxyCommand.USAGE);
        assertThat(err.toString()).contains("'ftp://***@api.internal/r?sig=***'").doesNotContain("pw9").doesNotContain("s1g");
    }

    @Test
    void anInvalidFilePrintsOneLinePerProblemAndExitsTwo() {
        int exit = validate("-c", INVALID + "bad-retry-on.yaml");

        String expected = " (expected: connect-failure, read-timeout, idle-timeout, reset or a status 400..599)";
        assertThat(exit).isEqualTo(IdemproxyCommand.USAGE);
        assertThat(lines(err)).containsExactly(
                INVALID + "bad-retry-on.yaml:5:34: routes[0].retry.retryOn[1]: 'timeout'" + expected,
                INVALID + "bad-retry-on.yaml:5:43: routes[0].retry.retryOn[2]: '200'" + expected);
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void zeroMaxAttemptsIsTheContractLine() {
        int exit = validate("-c", INVALID + "max-attempts-zero.yaml");

        assertThat(exit).isEqualTo(IdemproxyCommand.USAGE);
        assertThat(lines(err)).containsExactly(
                INVALID + "max-attempts-zero.yaml:5:20: routes[0].retry.maxAttempts: 0 (expected: >= 1)");
    }

    @Test
    void aMissingFileIsOneClearLine() {
        int exit = validate("-c", "no/such/idemproxy.yaml");

        assertThat(exit).isEqualTo(IdemproxyCommand.USAGE);
        assertThat(lines(err)).containsExactly("no/such/idemproxy.yaml: cannot read: no such file");
    }

    @Test
    void aDirectoryIsOneClearLine(@TempDir Path dir) {
        int exit = validate("-c", dir.toString());

        assertThat(exit).isEqualTo(IdemproxyCommand.USAGE);
        assertThat(lines(err)).containsExactly(dir + ": cannot read: is a directory");
    }

    @Test
    void anEmptyFileIsValidWithNoRoutes(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("empty.yaml"), "# nothing yet\n");

        int exit = validate("-c", file.toString());

        assertThat(exit).isEqualTo(IdemproxyCommand.OK);
        assertThat(lines(out)).containsExactly(file + ": OK", "(no routes)");
    }

    @Test
    void theConfigDefaultsToIdemproxyYamlInTheWorkingDirectory() {
        int exit = validate();

        assertThat(exit).isEqualTo(IdemproxyCommand.USAGE);
        assertThat(lines(err)).containsExactly("idemproxy.yaml: cannot read: no such file");
    }

    @Test
    void anUnknownOptionIsAUsageError() {
        assertThat(validate("--frobnicate")).isEqualTo(IdemproxyCommand.USAGE);
    }

    private int validate(String... args) {
        CommandLine cl = IdemproxyCommand.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        String[] all = new String[args.length + 1];
        all[0] = "validate";
        System.arraycopy(args, 0, all, 1, args.length);
        return cl.execute(all);
    }

    private static String[] lines(StringWriter w) {
        String s = w.toString().replace("\r\n", "\n").stripTrailing();
        return s.isEmpty() ? new String[0] : s.split("\n");
    }
}
