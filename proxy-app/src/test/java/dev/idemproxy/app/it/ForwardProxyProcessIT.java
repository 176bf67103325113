package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idemproxy.core.testing.FreePorts;
import dev.idemproxy.core.testing.SystemPackages;
import dev.idemproxy.core.testing.RawHttp;
import dev.idemproxy.core.testing.TestCertificates;
import dev.idemproxy.core.testing.TestUpstream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLHandshakeException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The forward proxy as a real process: what the JVM loads without it (no BouncyCastle, nothing of
 * the forward package), its one log line per CONNECT, and the {@code ca} verbs' output and exit codes.
 */
class ForwardProxyProcessIT {
    final Path dir;

    ForwardProxyProcessIT() throws Exception {
        dir = Files.createTempDirectory("idemproxy-forward-process");
    }

    @AfterEach
    void delete() throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    Path config(String body, int port) throws Exception {
        Path file = dir.resolve("idemproxy.yaml");
        Files.writeString(file, "listen: 127.0.0.1:" + port + "\nadmin: { listen: 127.0.0.1:0 }\nstore: { type: memory }\n" + body);
        return file;
    }

    /** {@code -Xlog:class+load} into {@code file}, through the variable every JVM reads. */
    static Map<String, String> classLog(Path file) {
        return Map.of("JAVA_TOOL_OPTIONS", "-Xlog:class+load=info:file=" + file);
    }

    @Test
    void withoutForwardProxyNoBouncyCastleOrForwardProxyClassIsLoaded() throws Exception {
        int port = FreePorts.pick();
        TestUpstream upstream = TestUpstream.start().defaultAction(respond(200, "ok"));
        Path classes = dir.resolve("classes.log");
        try (upstream; ChildProxy child = ChildProxy.start(dir, classLog(classes), "run", "--config",
                config("routes:\n  - name: all\n    upstream: " + upstream.uri() + "\n", port).toString())) {
            child.awaitLine("admin listening on");
            try (RawHttp raw = RawHttp.connect("127.0.0.1", port)) {
                raw.write("GET /x HTTP/1.1\r\nHost: a\r\n\r\n");
                assertThat(raw.readResponse().status()).isEqualTo(200);
            }
            try (RawHttp raw = RawHttp.connect("127.0.0.1", port)) {
                raw.write("CONNECT api.stripe.com:443 HTTP/1.1\r\nHost: api.stripe.com:443\r\n\r\n");
                assertThat(raw.readResponse().status()).isEqualTo(405);
            }
        }
        String loaded = Files.readString(classes);
        assertThat(loaded).as("the log is the JVM's").contains("dev.idemproxy.core.ProxyServer ")
                .contains("dev.idemproxy.core.pipeline.RouteHandler ");
        assertThat(loaded).doesNotContain("org.bouncycastle");
        // Of the forward package only its config value types may load (the config reader handles them).
        assertThat(loaded.lines().filter(l -> l.contains(" dev.idemproxy.core.forward.")).map(l -> l.split(" ")[1]))
                .allMatch(name -> name.startsWith("dev.idemproxy.core.forward.ForwardProxyPolicy"), "a config value type");
    }

    @Test
    void withForwardProxyEachConnectHasOneLogLineWithItsTargetResultAndATunnelsBytes() throws Exception {
        int port = FreePorts.pick();
        Path classes = dir.resolve("classes.log");
        try (TestCertificates certs = TestCertificates.create();
             TestUpstream upstream = TestUpstream.start(certs.serverSslContext()).defaultAction(respond(200, "secure"));
             ServerSocket target = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
             ChildProxy child = ChildProxy.start(dir, classLog(classes), "run", "--config", config(""
                     + "forwardProxy: { connect: tunnel }\n"
                     + "routes:\n"
                     + "  - name: tickets\n"
                     + "    match: { host: localhost }\n"
                     + "    intercept: true\n"
                     + "    tls: { caFile: \"" + certs.caPemFile() + "\" }\n", port).toString())) {
            child.awaitLine("admin listening on");
            Path caPem = dir.resolve("idemproxy-data/ca.crt");
            assertThat(Files.getPosixFilePermissions(dir.resolve("idemproxy-data/ca.key")))
                    .isEqualTo(PosixFilePermissions.fromString("rw-------"));

            HttpResponse<String> r = ConnectClient.client(port, caPem).send(HttpRequest.newBuilder(
                    ConnectClient.https("localhost", upstream.port(), "/x")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.body()).isEqualTo("secure");
            child.awaitLine("connect - CONNECT target=localhost:" + upstream.port() + " result=intercepted tls=ok ms=\\d+$");

            try (ConnectClient c = ConnectClient.connect(port, "127.0.0.1:" + target.getLocalPort(), "12345".getBytes(ISO_8859_1));
                 Socket far = target.accept()) {
                assertThat(c.readHead()).startsWith("HTTP/1.1 200 ");
                InputStream farIn = far.getInputStream();
                OutputStream farOut = far.getOutputStream();
                assertThat(new String(farIn.readNBytes(5), ISO_8859_1)).isEqualTo("12345");
                farOut.write("abc".getBytes(ISO_8859_1));
                farOut.flush();
                assertThat(new String(c.in().readNBytes(3), ISO_8859_1)).isEqualTo("abc");
                far.close();
                assertThat(c.in().read()).isEqualTo(-1);
            }
            child.awaitLine("connect - CONNECT target=127.0.0.1:" + target.getLocalPort() + " result=tunnelled up=5 down=3 ms=\\d+$");
            assertThat(child.count("CONNECT target=")).as("one line per CONNECT").isEqualTo(2);
        }
        assertThat(Files.readString(classes)).contains("org.bouncycastle.").contains("dev.idemproxy.core.forward.ConnectHandler ");
    }

    @Test
    void theDataDirectoryHoldingTheGeneratedCaIsOwnerOnlyEvenWhenTheStoreMadeIt() throws Exception {
        int port = FreePorts.pick();
        Path file = dir.resolve("idemproxy.yaml");
        Files.writeString(file, "listen: 127.0.0.1:" + port + "\nadmin: { listen: 127.0.0.1:0 }\n"
                + "store: { type: embedded, embedded: { path: data } }\nforwardProxy: {}\n");
        try (ChildProxy child = ChildProxy.start(dir, "run", "--config", file.toString())) {
            child.awaitLine("admin listening on");
            assertThat(Files.getPosixFilePermissions(dir.resolve("data"))).isEqualTo(PosixFilePermissions.fromString("rwx------"));
            assertThat(Files.getPosixFilePermissions(dir.resolve("data/ca.key"))).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            assertThat(Files.getPosixFilePermissions(dir.resolve("data/ca.crt"))).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        }
    }

    @Test
    void caCertPrintsTheCaGeneratingItOnceAndCaBundleEndsWithIt() throws Exception {
        Path file = config("forwardProxy: { ca: { cert: ca/ca.crt, key: ca/ca.key } }\n", 0);

        ChildProxy.Finished first = ChildProxy.run(dir, "ca", "cert", "--config", file.toString());
        ChildProxy.Finished second = ChildProxy.run(dir, "ca", "cert", "--config", file.toString());
        ChildProxy.Finished bundle = ChildProxy.run(dir, "ca", "bundle", "--config", file.toString());

        assertThat(first.exitCode()).as(first.toString()).isZero();
        String pem = String.join("\n", first.stdout()) + "\n";
        assertThat(pem).startsWith("-----BEGIN CERTIFICATE-----\n").endsWith("-----END CERTIFICATE-----\n")
                .isEqualTo(Files.readString(dir.resolve("ca/ca.crt")));
        assertThat(String.join("\n", second.stdout()) + "\n").as("the same CA, not a new one").isEqualTo(pem);
        assertThat(Files.getPosixFilePermissions(dir.resolve("ca/ca.key"))).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.getPosixFilePermissions(dir.resolve("ca"))).isEqualTo(PosixFilePermissions.fromString("rwx------"));
        assertThat(bundle.exitCode()).isZero();
        String all = String.join("\n", bundle.stdout()) + "\n";
        assertThat(all).endsWith(pem);
        assertThat(all.split("-----BEGIN CERTIFICATE-----", -1).length - 1).as("the system's roots, then the CA").isGreaterThan(1);
        assertThat(String.join("\n", first.stdout()) + String.join("\n", bundle.stdout())).doesNotContain("PRIVATE KEY");
    }

    /**
     * Issue #43: a client that does not trust the proxy's CA is told so in the CONNECT's line, not
     * with the TLS engine's words. Two real clients, each with the system's roots only: the JDK's
     * HttpClient (which closes the connection on the certificate) and curl (OpenSSL, which sends
     * its alert in the clear); then the same JDK client trusting the CA, whose handshake is {@code ok}.
     */
    @Test
    void aClientThatDoesNotTrustTheCaIsToldToTrustItInTheConnectLine() throws Exception {
        SystemPackages.require(List.of("curl", "--version"), "curl");
        int port = FreePorts.pick();
        try (TestCertificates certs = TestCertificates.create();
             TestUpstream upstream = TestUpstream.start(certs.serverSslContext()).defaultAction(respond(200, "secure"));
             ChildProxy child = ChildProxy.start(dir, "run", "--config", config(""
                     + "forwardProxy: { ca: { cert: ca/ca.crt, key: ca/ca.key } }\n"
                     + "routes:\n"
                     + "  - name: tickets\n"
                     + "    match: { host: localhost }\n"
                     + "    intercept: true\n"
                     + "    tls: { caFile: \"" + certs.caPemFile() + "\" }\n", port).toString())) {
            child.awaitLine("admin listening on");
            URI target = ConnectClient.https("localhost", upstream.port(), "/x");
            String line = "connect - CONNECT target=localhost:" + upstream.port() + " result=intercepted tls=\"client does not"
                    + " trust the proxy's CA (";
            String advice = "run: idemproxy ca cert --config FILE, and make the client trust what it prints: docs/https-proxy.md)\" ms=";

            HttpClient untrusting = HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", port))).build();
            assertThatThrownBy(() -> untrusting.send(HttpRequest.newBuilder(target).build(), HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(SSLHandshakeException.class);
            child.awaitLine(l -> l.contains(line + "it closed the connection on the proxy's certificate; " + advice), ChildProxy.DEFAULT_WAIT);

            Process curl = new ProcessBuilder("curl", "-sS", "--max-time", "20", "-x", "http://127.0.0.1:" + port, target.toString())
                    .redirectErrorStream(true).start();
            String said = new String(curl.getInputStream().readAllBytes(), ISO_8859_1);
            assertThat(curl.waitFor()).as(said).isEqualTo(60);  // curl: the peer's certificate cannot be verified
            child.awaitLine(l -> l.contains(line + advice), ChildProxy.DEFAULT_WAIT);

            HttpResponse<String> trusted = ConnectClient.client(port, dir.resolve("ca/ca.crt")).send(HttpRequest.newBuilder(target).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(trusted.body()).isEqualTo("secure");
            child.awaitLine("CONNECT target=localhost:" + upstream.port() + " result=intercepted tls=ok ms=\\d+$");
            assertThat(child.count("client does not trust the proxy's CA")).isEqualTo(2);
            assertThat(child.count("SSLHandshakeException")).isZero();
        }
    }

    /**
     * Issue #43: the CA's relative paths are the config file's, not the working directory's: run
     * from another folder, {@code ca cert} prints the CA it made before instead of making a second
     * one; making it is said on stderr with the files' absolute paths, and stdout is the PEM alone.
     */
    @Test
    void caCertFromAnotherFolderPrintsTheCaBesideTheConfigAndSaysWhenItMakesOne() throws Exception {
        Path file = config("forwardProxy: { ca: { cert: ca/ca.crt, key: ca/ca.key } }\n", 0);
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));

        ChildProxy.Finished made = ChildProxy.run(elsewhere, "ca", "cert", "--config", file.toString());
        ChildProxy.Finished again = ChildProxy.run(elsewhere, "ca", "cert", "--config", "../idemproxy.yaml");

        assertThat(made.exitCode()).as(made.toString()).isZero();
        assertThat(made.stderr()).containsExactly("idemproxy ca: created a new CA: " + dir.resolve("ca/ca.crt").toAbsolutePath()
                + ", its key " + dir.resolve("ca/ca.key").toAbsolutePath() + " (mode 0600); a proxy run with " + file + " uses it");
        assertThat(String.join("\n", made.stdout()) + "\n").isEqualTo(Files.readString(dir.resolve("ca/ca.crt")));
        assertThat(again.exitCode()).as(again.toString()).isZero();
        assertThat(again.stderr()).as("nothing made, nothing said").isEmpty();
        assertThat(again.stdout()).isEqualTo(made.stdout());
        try (Stream<Path> files = Files.list(elsewhere)) {
            assertThat(files).as("nothing written where it ran").isEmpty();
        }
    }

    @Test
    void caWithoutForwardProxyIsAConfigError() throws Exception {
        Path file = config("routes: []\n", 0);

        ChildProxy.Finished r = ChildProxy.run(dir, "ca", "cert", "--config", file.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr()).anyMatch(l -> l.endsWith(": no forwardProxy section (expected: forwardProxy, whose CA this prints; "
                + "see docs/https-proxy.md)"));
        assertThat(r.stdout()).isEmpty();
    }
}
