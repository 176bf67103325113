package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.after;
import static dev.idemproxy.core.testing.UpstreamAction.dynamic;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.app.cli.IdemproxyCommand;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.SystemPackages;
import dev.idemproxy.core.testing.TestCertificates;
import dev.idemproxy.core.testing.TestUpstream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real clients through {@code HTTPS_PROXY} (CONTRACT §11): curl, the system Python's requests and
 * httpx, and Node with undici's ProxyAgent, each trusting the proxy's CA the way
 * docs/https-proxy.md says. Each times out on a first POST that the upstream holds, and its retry of
 * the same call is answered from the proxy, the upstream having executed it once. The clients are
 * installed when missing: Debian's curl, python3-requests, python3-httpx (for {@code /usr/bin/python3},
 * not another python3 on the PATH) and nodejs/npm; undici by {@code npm ci} from the committed lock file.
 */
@ExtendWith(LeakDetection.class)
class HttpsProxyClientsIT {
    static final String PYTHON = "/usr/bin/python3";
    static TestCertificates certs;
    static TestUpstream upstream;
    static RunningProxy proxy;
    static Path work;
    static Path caPem;
    static Path bundle;
    static final Map<String, CompletableFuture<Void>> gates = new ConcurrentHashMap<>();

    @BeforeAll
    static void start() throws Exception {
        SystemPackages.require(List.of("curl", "--version"), "curl");
        SystemPackages.require(List.of(PYTHON, "-c", "import requests, httpx"), "python3-requests", "python3-httpx");
        SystemPackages.require(List.of("node", "--version"), "nodejs", "npm");
        SystemPackages.require(List.of("npm", "--version"), "npm");
        work = Path.of("target", "https-proxy-clients").toAbsolutePath();
        copyScripts(work);
        if (!Files.isDirectory(work.resolve("node_modules/undici"))) {
            try (ClientScript npm = ClientScript.start(work, Map.of(), List.of("npm", "ci", "--no-audit", "--no-fund"))) {
                assertThat(npm.waitFor(Duration.ofMinutes(5))).as("npm ci:\n" + npm.output()).isZero();
            }
        }

        certs = TestCertificates.create();
        upstream = TestUpstream.start(certs.serverSslContext());
        upstream.defaultAction(dynamic(r -> {
            CompletableFuture<Void> gate = r.header("Idempotency-Key") == null ? null : gates.get(r.header("Idempotency-Key"));
            return gate != null ? after(gate, respond(201, "made once")) : respond(200, "warm");
        }));
        proxy = RunningProxy.start(""
                + "forwardProxy:\n"
                + "  ca: { cert: " + work.resolve("ca/ca.crt") + ", key: " + work.resolve("ca/ca.key") + " }\n"
                + "routes:\n"
                + "  - name: tickets\n"
                + "    match: { host: localhost }\n"
                + "    intercept: true\n"
                + "    tls: { caFile: \"" + certs.caPemFile() + "\" }\n"
                + "    idempotency: { enabled: true, waitTimeout: 30s }\n");
        caPem = work.resolve("idemproxy-ca.pem");
        Files.writeString(caPem, cli("ca", "cert", "--config", proxy.configFile.toString()));
        bundle = work.resolve("ca-bundle.pem");
        Files.writeString(bundle, cli("ca", "bundle", "--config", proxy.configFile.toString()));
        // The first CONNECT to a host mints its certificate; done here, so no client's first timeout is spent on it.
        assertThat(ConnectClient.client(proxy.port(), caPem).send(HttpRequest.newBuilder(
                ConnectClient.https("localhost", upstream.port(), "/warm")).build(), HttpResponse.BodyHandlers.ofString())
                .statusCode()).isEqualTo(200);
    }

    @AfterAll
    static void stop() throws Exception {
        gates.values().forEach(g -> g.complete(null));
        if (proxy != null) {
            proxy.close();
            upstream.close();
            certs.close();
        }
        Path ca = work.resolve("ca");
        if (Files.isDirectory(ca)) {
            try (Stream<Path> files = Files.walk(ca)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** The scripts from the test resources into {@code dir}, where node_modules stays between runs. */
    static void copyScripts(Path dir) throws IOException {
        Files.createDirectories(dir);
        for (String name : List.of("package.json", "package-lock.json", "undici-retry.mjs", "python-retry.py", "curl-retry.sh")) {
            try (var in = HttpsProxyClientsIT.class.getResourceAsStream("/https-proxy/" + name)) {
                Files.copy(in, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /** What {@code idemproxy ARGS} prints, run in this JVM; fails unless it exits 0. */
    static String cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = IdemproxyCommand.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        assertThat(cl.execute(args)).as(String.join(" ", args) + ": " + err).isZero();
        return out.toString();
    }

    static List<String> command(String client, String url, String key, String body) {
        return switch (client) {
            case "curl" -> List.of("bash", "curl-retry.sh", caPem.toString(), url, key, body);
            case "requests", "httpx" -> List.of(PYTHON, "python-retry.py", client, url, key, body);
            case "undici" -> List.of("node", "undici-retry.mjs", url, key, body);
            default -> throw new IllegalArgumentException(client);
        };
    }

    /** The variables an agent's environment would carry, per docs/https-proxy.md. */
    static Map<String, String> env(String client) {
        String proxyUrl = "http://127.0.0.1:" + proxy.port();
        return switch (client) {
            case "curl" -> Map.of("HTTPS_PROXY", proxyUrl);
            case "requests" -> Map.of("HTTPS_PROXY", proxyUrl, "REQUESTS_CA_BUNDLE", bundle.toString());
            case "httpx" -> Map.of("HTTPS_PROXY", proxyUrl, "SSL_CERT_FILE", bundle.toString());
            case "undici" -> Map.of("HTTPS_PROXY", proxyUrl, "NODE_EXTRA_CA_CERTS", caPem.toString());
            default -> throw new IllegalArgumentException(client);
        };
    }

    static long executions(String key) {
        return upstream.requests().stream().filter(r -> key.equals(r.header("Idempotency-Key"))).count();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"curl", "requests", "httpx", "undici"})
    void aClientTimeoutThenRetryThroughTheInterceptionIsReplayedAndTheUpstreamExecutesOnce(String client) throws Exception {
        String key = "https-proxy-" + client + "-" + System.nanoTime();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        gates.put(key, gate);
        String url = ConnectClient.https("localhost", upstream.port(), "/api/tickets").toString();

        try (ClientScript run = ClientScript.start(work, env(client), command(client, url, key, "{\"title\":\"" + client + "\"}"))) {
            assertThat(run.awaitLine(Duration.ofSeconds(60), "TIMEOUT", "NO-TIMEOUT", "ERROR"))
                    .as("the first attempt times out:\n" + run.output()).isEqualTo("TIMEOUT");
            assertThat(executions(key)).as("the first attempt reached the upstream, which holds it").isEqualTo(1);
            gate.complete(null);
            assertThat(run.waitFor(Duration.ofSeconds(60))).as(run.output()).isZero();

            assertThat(run.awaitLine(Duration.ofSeconds(1), "STATUS")).isEqualTo("STATUS 201");
            assertThat(run.awaitLine(Duration.ofSeconds(1), "REPLAYED")).as("the retry is answered from the proxy").isEqualTo("REPLAYED true");
            assertThat(run.awaitLine(Duration.ofSeconds(1), "BODY")).isEqualTo("BODY made once");
        }
        assertThat(executions(key)).as("the upstream executed the call once").isEqualTo(1);
    }

    @Test
    void theCaBundleIsAcceptedByPythonsSslModuleAndHoldsTheSystemRootsAndTheCa() throws Exception {
        String check = "import ssl, sys\n"
                + "ctx = ssl.create_default_context(cafile=sys.argv[1])\n"
                + "certs = ctx.get_ca_certs()\n"
                + "names = [dict(x[0] for x in c['subject']).get('commonName', '') for c in certs]\n"
                + "print(len(certs), any(n.startswith('idemproxy local CA') for n in names))\n";
        try (ClientScript run = ClientScript.start(work, Map.of(), List.of(PYTHON, "-c", check, bundle.toString()))) {
            assertThat(run.waitFor(Duration.ofSeconds(60))).as(run.output()).isZero();
            String[] answer = run.awaitLine(Duration.ofSeconds(1), "").split(" ");
            assertThat(Integer.parseInt(answer[0])).as("the system's roots and the CA").isGreaterThan(1);
            assertThat(answer[1]).as("the proxy's CA is in it").isEqualTo("True");
        }
        assertThat(Files.readString(bundle)).endsWith(Files.readString(caPem));
    }
}
