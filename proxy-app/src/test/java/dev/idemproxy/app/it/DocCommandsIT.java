package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.app.cli.IdemproxyCommand;
import dev.idemproxy.core.testing.FreePorts;
import dev.idemproxy.core.testing.TestUpstream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every {@code idemproxy …} the docs write (issue #43: "every command in the README and docs/ runs
 * as written"), read from README.md and docs/*.md, the comments of the Helm values and of the
 * configs under config/ and examples/:
 * <ul>
 *   <li>every one, in a shell block, a text block, inline code or a YAML comment, names only verbs
 *       and options that exist (checked against the command line's model);</li>
 *   <li>each one in a {@code sh} block that needs neither the network nor a running proxy
 *       ({@code --help}, {@code --version}, {@code validate}, {@code ca cert|bundle}, {@code demo})
 *       runs as written, through a shell with bin/ on PATH and from the clone's root, and must
 *       exit 0 with the output its verb gives; a config file the line names that the clone does not
 *       have (a reader's own {@code idemproxy.yaml}) is written, with a {@code forwardProxy}, in a
 *       folder of its own where the line then runs; an output redirection is left out and the
 *       output checked instead;</li>
 *   <li>each {@code dlq …} and {@code receipts …} runs against a proxy this test starts through
 *       bin/idemproxy (its admin URL added with {@code --admin}), after a call sent with
 *       {@code X-Biz-Id: order-42}: a list or a business id's receipts exit 0 with them; an example
 *       id that this proxy never gave out exits 1 with the admin API's 404;</li>
 *   <li>the rest is skipped, each with its reason, and the report names every line and what was
 *       done with it. A command in a block without a language fails: mark it {@code sh}, or
 *       {@code text} when it is output or a synopsis.</li>
 * </ul>
 */
class DocCommandsIT {
    static final Path ROOT = DocBlocks.ROOT;
    static final Pattern INVOCATION = Pattern.compile(
            "^(?:[A-Za-z_][A-Za-z0-9_]*=\\S*\\s+)*(bin/idemproxy|idemproxy|java(?:\\s+@\\S+)?\\s+-jar\\s+\\S*idemproxy\\.jar)(?=\\s|$)(.*)$");
    static final String TOKEN = "doc-commands-token";
    static final String RUN_SKIP = "starts the proxy on the config's fixed ports and serves until stopped: ExampleConfigIT runs"
            + " config/idemproxy.yaml, and McpTryItIT docs/mcp.md's Try it with examples/mcp/idemproxy.yaml, through bin/idemproxy"
            + " on free ports";
    static final String SERVE_SKIP = "serves the tickets service on the fixed port 8081 until stopped: ExampleConfigIT runs"
            + " demo serve on a free port";

    @TempDir
    Path dir;

    /** One {@code idemproxy …} found in the docs: where, its text from the command on, and whether it is a shell line. */
    record Found(String where, String text, String args, boolean shell) {}

    @Test
    void everyIdemproxyCommandInTheDocsNamesRealVerbsAndRunsAsWritten() throws Exception {
        List<Found> found = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        collect(found, problems);
        Map<String, String> report = new LinkedHashMap<>();
        Map<String, Result> ran = new LinkedHashMap<>();
        AdminProxy admin = null;
        try {
            for (Found f : found) {
                if (!f.shell() && prose(f.args())) {
                    report.put(f.where(), "prose, not a command: " + f.text());
                    continue;
                }
                Walk walk = walk(f.args(), f.shell());
                if (walk.problem() != null) {
                    problems.add(f.where() + ": " + walk.problem() + ": " + f.text());
                    continue;
                }
                if (!f.shell()) {
                    report.put(f.where(), "names checked: " + f.text());
                    continue;
                }
                String verb = String.join(" ", walk.verbs());
                String skip = walk.help() || walk.version() ? null
                        : verb.isEmpty() || verb.equals("run") ? RUN_SKIP
                        : verb.equals("demo serve") ? SERVE_SKIP
                        : null;
                if (skip != null) {
                    report.put(f.where(), "skipped (" + skip + "): " + f.text());
                    continue;
                }
                boolean againstProxy = !walk.help() && (verb.startsWith("dlq") || verb.startsWith("receipts"));
                if (!walk.help() && !walk.version() && !againstProxy && !List.of("validate", "ca cert", "ca bundle", "demo").contains(verb)) {
                    problems.add(f.where() + ": no rule for the verb '" + verb + "' (add one to DocCommandsIT): " + f.text());
                    continue;
                }
                String line = runnable(f.text());
                if (againstProxy) {
                    if (admin == null) {
                        admin = AdminProxy.start(dir.resolve("admin-proxy"));
                    }
                    line = line + " --admin " + admin.url();
                }
                Path cwd = workingDirectory(walk, problems, f);
                String key = cwd + "|" + line;
                Result r = ran.get(key);
                if (r == null) {
                    r = run(line, cwd);
                    ran.put(key, r);
                }
                String unexpected = expectation(walk, verb, r, f.text());
                if (unexpected != null) {
                    problems.add(f.where() + ": " + unexpected + ": " + f.text() + "\n" + r);
                }
                report.put(f.where(), (againstProxy ? "ran against a proxy started here" : "ran") + " (exit " + r.exit() + "): " + f.text());
            }
        } finally {
            if (admin != null) {
                admin.close();
            }
        }
        report.forEach((where, what) -> System.out.println("DocCommandsIT " + where + ": " + what));
        assertThat(problems).as("every idemproxy command in the docs").isEmpty();
        assertThat(report.values().stream().filter(v -> v.startsWith("ran (")).count()).as("lines run").isGreaterThanOrEqualTo(5);
        assertThat(report.values().stream().filter(v -> v.startsWith("ran against")).count()).as("lines run against a proxy")
                .isGreaterThanOrEqualTo(5);
    }

    /** The check every docs line gets can fail: a verb, an option, or an option before a verb that does not take it. */
    @Test
    void aVerbOrOptionThatDoesNotExistIsNamed() {
        assertThat(walk("dlq lst", true).problem()).isEqualTo("'lst' is no verb or argument of 'idemproxy dlq'");
        assertThat(walk("validate --confg config/idemproxy.yaml", true).problem()).isEqualTo("'--confg' is no option of 'idemproxy validate'");
        assertThat(walk("--config F dlq list", true).problem()).isEqualTo("'--config' before the verb does not apply to 'idemproxy dlq'");
        assertThat(walk("ca cert|bunlde --config F", false).problem()).isEqualTo("'bunlde' is no verb of 'idemproxy ca'");
        assertThat(walk("receipts get --biz-id order-42 --limit 20", true).problem()).isNull();
        assertThat(walk("receipts get --biz-id order-42 --limit 20", true).verbs()).containsExactly("receipts", "get");
        assertThat(runnable("idemproxy ca cert --config x.yaml > ca.pem   # the CA")).isEqualTo("idemproxy ca cert --config x.yaml");
        assertThat(runnable("idemproxy demo serve --listen 127.0.0.1:8081 &   # the service")).isEqualTo("idemproxy demo serve --listen 127.0.0.1:8081");
    }

    /** The docs' idemproxy lines: shell lines of sh blocks, lines of other blocks, inline code, YAML comments. */
    static void collect(List<Found> found, List<String> problems) throws IOException {
        for (DocBlocks.Block b : DocBlocks.all()) {
            boolean shell = List.of("sh", "bash", "shell").contains(b.language());
            List<String> joined = new ArrayList<>();
            List<Integer> at = new ArrayList<>();
            StringBuilder pending = new StringBuilder();
            int start = -1;
            for (int i = 0; i < b.lines().size(); i++) {
                String raw = b.lines().get(i);
                start = start < 0 ? i : start;
                if (shell && raw.endsWith("\\")) {
                    pending.append(raw, 0, raw.length() - 1);
                    continue;
                }
                joined.add(pending.append(raw).toString());
                at.add(start);
                pending.setLength(0);
                start = -1;
            }
            for (int i = 0; i < joined.size(); i++) {
                String line = joined.get(i).strip().replaceFirst("^\\$\\s+", "");
                for (String segment : shell ? line.split("\\s+&&\\s+|;\\s+") : new String[] {line}) {
                    Matcher m = INVOCATION.matcher(segment.strip());
                    if (!m.matches()) {
                        continue;
                    }
                    if (b.language().isEmpty()) {
                        problems.add(b.where(at.get(i)) + ": an idemproxy command in a block without a language (mark it sh,"
                                + " or text for output or a synopsis): " + segment.strip());
                    }
                    found.add(new Found(b.where(at.get(i)), segment.strip(), m.group(2), shell));
                }
            }
        }
        Pattern inline = Pattern.compile("`([^`]+)`");
        for (Path file : DocBlocks.markdownFiles()) {
            String text = Pattern.compile("(?s)```.*?```").matcher(Files.readString(file))
                    .replaceAll(m -> m.group().replaceAll("[^\n]", " "));
            Matcher m = inline.matcher(text);
            while (m.find()) {
                Matcher inv = INVOCATION.matcher(m.group(1).replace('\n', ' ').strip());
                if (inv.matches()) {
                    int line = 1 + (int) text.substring(0, m.start()).chars().filter(c -> c == '\n').count();
                    found.add(new Found(ROOT.relativize(file) + ":" + line, inv.group(), inv.group(2), false));
                }
            }
        }
        List<Path> yamls = new ArrayList<>(List.of(ROOT.resolve("helm/idemproxy/values.yaml")));
        for (String folder : List.of("config", "examples")) {
            try (Stream<Path> files = Files.walk(ROOT.resolve(folder))) {
                files.filter(p -> p.toString().endsWith(".yaml") && !p.toString().contains("node_modules")).sorted().forEach(yamls::add);
            }
        }
        for (Path file : yamls) {
            List<String> lines = Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) {
                Matcher comment = Pattern.compile("^\\s*#\\s+(.*)$").matcher(lines.get(i));
                if (comment.matches()) {
                    Matcher inv = INVOCATION.matcher(comment.group(1).strip());
                    if (inv.matches()) {
                        found.add(new Found(ROOT.relativize(file) + ":" + (i + 1), inv.group(), inv.group(2), false));
                    }
                }
            }
        }
    }

    /**
     * Outside shell blocks, "idemproxy" also starts prose and output ("idemproxy listening on …",
     * "idemproxy chart values"): a command there starts with a verb or holds an option.
     */
    static boolean prose(String args) {
        List<String> t = tokens(args);
        boolean verb = !t.isEmpty() && IdemproxyCommand.commandLine().getSubcommands().containsKey(t.get(0).split("\\|")[0].replace("[", ""));
        return !verb && t.stream().noneMatch(w -> w.replace("[", "").startsWith("-"));
    }

    /** What a line's arguments name: its verbs, whether it asks for help or the version, or the first name that does not exist. */
    record Walk(List<String> verbs, boolean help, boolean version, List<String> configs, String problem) {}

    /**
     * Walks {@code args} over the command line's model, as picocli would parse it, without running
     * anything. For a shell line, an option before the verb must also be one of the verb's (else the
     * command is a usage error); prose may show such a line as the error it is.
     */
    static Walk walk(String args, boolean shell) {
        CommandSpec root = IdemproxyCommand.commandLine().getCommandSpec();
        CommandSpec current = root;
        List<String> verbs = new ArrayList<>();
        List<String> beforeVerb = new ArrayList<>();
        List<String> configs = new ArrayList<>();
        boolean help = false;
        boolean version = false;
        List<String> tokens = tokens(args);
        for (int i = 0; i < tokens.size(); i++) {
            String t = tokens.get(i).replace("[", "").replace("]", "");
            if (t.isEmpty()) {
                continue;
            }
            if (t.startsWith("-")) {
                String name = t.contains("=") ? t.substring(0, t.indexOf('=')) : t;
                OptionSpec o = current.findOption(name);
                if (o == null) {
                    return new Walk(verbs, help, version, configs, "'" + name + "' is no option of '" + current.qualifiedName() + "'");
                }
                help |= o.usageHelp();
                version |= o.versionHelp();
                if (verbs.isEmpty() && !o.usageHelp() && !o.versionHelp()) {
                    beforeVerb.add(name);
                }
                if (o.arity().max() > 0 && !t.contains("=") && i + 1 < tokens.size()) {
                    i++;
                    if (name.equals("--config") || name.equals("-c")) {
                        configs.add(tokens.get(i));
                    }
                }
                continue;
            }
            Map<String, CommandLine> subs = current.subcommands();
            String[] alternatives = t.split("\\|");
            if (!subs.isEmpty() && subs.containsKey(alternatives[0])) {
                for (String a : alternatives) {
                    if (!subs.containsKey(a)) {
                        return new Walk(verbs, help, version, configs, "'" + a + "' is no verb of '" + current.qualifiedName() + "'");
                    }
                }
                current = subs.get(alternatives[0]).getCommandSpec();
                verbs.add(alternatives.length > 1 ? t : alternatives[0]);
                for (String before : shell ? beforeVerb : List.<String>of()) {
                    if (current.findOption(before) == null) {
                        return new Walk(verbs, help, version, configs, "'" + before + "' before the verb does not apply to '"
                                + current.qualifiedName() + "'");
                    }
                }
                continue;
            }
            if (current.positionalParameters().isEmpty()) {
                return new Walk(verbs, help, version, configs, "'" + t + "' is no verb or argument of '" + current.qualifiedName() + "'");
            }
        }
        return new Walk(verbs, help, version, configs, null);
    }

    /** The words of a command's arguments, quotes removed, up to where the shell would end the command (a comment, a redirection, |, &, …). */
    static List<String> tokens(String args) {
        List<String> tokens = new ArrayList<>();
        Matcher m = Pattern.compile("'([^']*)'|\"([^\"]*)\"|(\\S+)").matcher(args);
        while (m.find()) {
            String word = m.group(3);
            if (word != null && (word.startsWith("#") || word.startsWith(">") || word.startsWith("2>") || word.startsWith("<")
                    || word.equals("|") || word.equals("&") || word.equals("&&") || word.equals(";") || word.startsWith("(")
                    || word.equals("…") || word.equals("..."))) {
                break;
            }
            tokens.add(word != null ? word : m.group(1) != null ? m.group(1) : m.group(2));
        }
        return tokens;
    }

    /** The line without its comment, its output redirections and a trailing {@code &}. */
    static String runnable(String text) {
        String s = text.replaceFirst("\\s+#\\s.*$", "").strip();
        s = s.replaceAll("\\s+\\d?>>?\\s*\\S+", "").strip();
        return s.endsWith("&") ? s.substring(0, s.length() - 1).strip() : s;
    }

    /** The clone's root when it has every config file the line names; else a folder where they are written. */
    Path workingDirectory(Walk walk, List<String> problems, Found f) throws IOException {
        List<String> missing = walk.configs().stream().filter(c -> !Files.exists(ROOT.resolve(c))).toList();
        if (missing.isEmpty()) {
            return ROOT;
        }
        Path own = Files.createDirectories(dir.resolve("own-" + Integer.toHexString(f.where().hashCode())));
        for (String c : missing) {
            if (Path.of(c).isAbsolute()) {
                problems.add(f.where() + ": names " + c + ", which a clone does not have: " + f.text());
                continue;
            }
            Path file = own.resolve(c);
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, "forwardProxy: { ca: { cert: ca/ca.crt, key: ca/ca.key } }\n");
        }
        return own;
    }

    /** How one line ran. */
    record Result(int exit, List<String> stdout, List<String> stderr) {
        String out() {
            return String.join("\n", stdout);
        }

        @Override
        public String toString() {
            return "exit " + exit + "\nstdout:\n" + out() + "\nstderr:\n" + String.join("\n", stderr);
        }
    }

    static Result run(String line, Path cwd) throws Exception {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", ROOT.resolve("bin") + ":" + System.getenv("PATH"));
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.put("IDEMPROXY_ADMIN_TOKEN", TOKEN);
        env.put("NEXT", null);
        try (ChildProxy shell = ChildProxy.command(List.of("sh", "-c", line), cwd, env)) {
            int exit = shell.waitFor(Duration.ofSeconds(120));
            shell.awaitStreamsClosed(Duration.ofSeconds(10));
            return new Result(exit, shell.stdout(), shell.stderr());
        }
    }

    /** What is wrong with how a line ran, by its verb; null when it did what its verb does. */
    static String expectation(Walk walk, String verb, Result r, String text) {
        String out = r.out();
        if (walk.help()) {
            return r.exit() == 0 && out.contains("Usage: idemproxy") ? null : "expected exit 0 and a usage text";
        }
        if (walk.version()) {
            return r.exit() == 0 && out.startsWith("idemproxy ") ? null : "expected exit 0 and 'idemproxy VERSION'";
        }
        int certificates = out.split("-----BEGIN CERTIFICATE-----", -1).length - 1;
        switch (verb) {
            case "validate":
                return r.exit() == 0 && !r.stdout().isEmpty() && r.stdout().get(0).endsWith(": OK") ? null : "expected exit 0 and 'FILE: OK'";
            case "ca cert":
                return r.exit() == 0 && certificates == 1 && out.startsWith("-----BEGIN CERTIFICATE-----") && !out.contains("PRIVATE")
                        ? null : "expected exit 0 and one certificate alone on stdout";
            case "ca bundle":
                return r.exit() == 0 && certificates >= 2 ? null : "expected exit 0 and the roots and the CA on stdout";
            case "demo":
                return r.exit() == 0 && out.contains("Both runs took") ? null : "expected exit 0 and the demo's table";
            case "dlq list":
                return r.exit() == 0 && out.contains("\"entries\"") ? null : "expected exit 0 and the entries";
            case "receipts get":
                if (text.contains("--biz-id")) {
                    boolean sent = text.contains("--biz-id order-42");
                    return r.exit() == 0 && out.contains("\"receipts\"") && (!sent || out.contains("\"order-42\""))
                            ? null : "expected exit 0 and the receipts" + (sent ? " of the call sent with X-Biz-Id: order-42" : "");
                }
                // falls through: a receipt by an example call id
            case "dlq show", "dlq replay", "dlq delete":
                return r.exit() == 1 && String.join("\n", r.stderr()).contains("HTTP 404")
                        ? null : "expected exit 1 and the admin API's 404 for an id this proxy never gave out";
            default:
                return "no expectation for '" + verb + "'";
        }
    }

    /** A proxy for the admin verbs, started through bin/idemproxy, with one call sent with X-Biz-Id: order-42. */
    record AdminProxy(ChildProxy process, TestUpstream upstream, int adminPort) implements AutoCloseable {
        static AdminProxy start(Path dir) throws Exception {
            Files.createDirectories(dir);
            TestUpstream upstream = TestUpstream.start().defaultAction(respond(201, "{\"ticketId\":\"T-0001\"}"));
            int port = FreePorts.pick();
            int adminPort = FreePorts.pick();
            Path config = Files.writeString(dir.resolve("idemproxy.yaml"), "listen: 127.0.0.1:" + port + "\n"
                    + "admin: { listen: 127.0.0.1:" + adminPort + ", token: " + TOKEN + " }\n"
                    + "store: { type: memory }\n"
                    + "routes:\n  - name: tickets\n    match: { pathPrefix: /tickets }\n    upstream: " + upstream.uri() + "\n"
                    + "    idempotency: { enabled: true }\n");
            ChildProxy process = ChildProxy.command(List.of(ROOT.resolve("bin/idemproxy").toString(), "run", "--config",
                    config.toString()), dir, Map.of("JAVA_HOME", System.getProperty("java.home")));
            process.awaitLine("admin listening on");
            HttpResponse<String> made = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/tickets")).header("Content-Type", "application/json")
                    .header("X-Biz-Id", "order-42").POST(HttpRequest.BodyPublishers.ofString("{\"title\":\"paper jam\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(made.statusCode()).as(process.transcript()).isEqualTo(201);
            return new AdminProxy(process, upstream, adminPort);
        }

        String url() {
            return "http://127.0.0.1:" + adminPort;
        }

        @Override
        public void close() throws Exception {
            try {
                process.signal("TERM");
                assertThat(process.waitFor(ChildProxy.DEFAULT_WAIT)).as(process.transcript()).isZero();
            } finally {
                process.close();
                upstream.close();
            }
        }
    }
}
