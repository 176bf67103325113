package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.after;
import static dev.idemproxy.core.testing.UpstreamAction.dynamic;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RecordedRequest;
import dev.idemproxy.core.testing.TestCertificates;
import dev.idemproxy.core.testing.TestUpstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * HTTPS_PROXY interception end to end (docs/https-proxy.md): a JDK client sends CONNECT to the proxy,
 * trusts only the proxy's CA, and the calls inside reach a real TLS upstream on loopback with its
 * own test CA, through the same protection as plain calls.
 */
@ExtendWith(LeakDetection.class)
class HttpsInterceptionIT {
    static TestCertificates certs;
    static TestUpstream upstream;
    /** A plain-http stand-in (a mock, a staging server) that the route {@code staged} sends its intercepted calls to. */
    static TestUpstream staging;
    static RunningProxy proxy;
    static Path caDir;
    /** Responses held back per path until the test completes the gate. */
    static final Map<String, CompletableFuture<Void>> gates = new ConcurrentHashMap<>();

    @BeforeAll
    static void start() throws Exception {
        certs = TestCertificates.create();
        upstream = TestUpstream.start(certs.serverSslContext());
        upstream.defaultAction(dynamic(r -> {
            CompletableFuture<Void> gate = gates.get(r.path());
            return gate != null ? after(gate, respond(201, "made once")) : respond(200, "secure hello");
        }));
        staging = TestUpstream.start().defaultAction(respond(200, "staged"));
        caDir = Files.createTempDirectory("idemproxy-ca");
        proxy = RunningProxy.start(""
                + "forwardProxy:\n"
                + "  connect: refuse\n"
                + "  ca: { cert: " + caDir.resolve("new/ca.crt") + ", key: " + caDir.resolve("new/ca.key") + " }\n"
                + "routes:\n"
                + "  - name: tickets\n"
                + "    match: { host: localhost }\n"
                + "    intercept: true\n"
                + "    tls: { caFile: \"" + certs.caPemFile() + "\" }\n"
                + "    idempotency: { enabled: true, waitTimeout: 30s }\n"
                + "  - name: staged\n"
                + "    match: { host: api.example.test }\n"
                + "    intercept: true\n"
                + "    upstream: " + staging.uri() + "\n"
                + "  - name: untrusted\n"
                + "    match: { host: 127.0.0.1 }\n"
                + "    intercept: true\n"
                + "    tls: { caFile: \"" + certs.unrelatedCaPemFile() + "\" }\n");
    }

    @AfterAll
    static void stop() throws Exception {
        gates.values().forEach(g -> g.complete(null));
        proxy.close();
        upstream.close();
        staging.close();
        certs.close();
        try (Stream<Path> files = Files.walk(caDir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    static Path caPem() {
        return caDir.resolve("new/ca.crt");
    }

    static HttpRequest.Builder request(String host, String path) {
        return HttpRequest.newBuilder(ConnectClient.https(host, upstream.port(), path)).timeout(Duration.ofSeconds(20));
    }

    static long requestsTo(String path) {
        return upstream.requests().stream().filter(r -> r.path().equals(path)).count();
    }

    @Test
    void aCallInsideTheTunnelReachesTheHostItAskedForOverVerifiedTls() throws Exception {
        HttpClient client = ConnectClient.client(proxy.port(), caPem());
        int before = upstream.requestCount();

        HttpResponse<String> r = client.send(request("localhost", "/api/hello?q=1").build(), HttpResponse.BodyHandlers.ofString());

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("secure hello");
        X509Certificate presented = (X509Certificate) r.sslSession().orElseThrow().getPeerCertificates()[0];
        assertThat(presented.getSubjectX500Principal().getName()).contains("CN=localhost");
        assertThat(presented.getIssuerX500Principal().getName()).contains("CN=idemproxy local CA");
        RecordedRequest seen = upstream.awaitRequests(before + 1, Duration.ofSeconds(10)).get(before);
        assertThat(seen.uri()).isEqualTo("/api/hello?q=1");
        assertThat(seen.header("Host")).isEqualTo("localhost:" + upstream.port());
        assertThat(seen.header("X-Forwarded-Host")).isEqualTo("localhost:" + upstream.port());
        assertThat(seen.header("X-Forwarded-Proto")).as("what the proxy saw: the client's TLS").isEqualTo("https");
    }

    @Test
    void anHttp2ClientIsOfferedHttp11OnlyAndFallsBack() throws Exception {
        HttpClient client = ConnectClient.client(proxy.port(), caPem(), HttpClient.Version.HTTP_2);

        HttpResponse<String> r = client.send(request("localhost", "/api/h2").build(), HttpResponse.BodyHandlers.ofString());

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
    }

    @Test
    void manyCallsShareOneConnectAndItsConnection() throws Exception {
        HttpClient client = ConnectClient.client(proxy.port(), caPem());
        client.send(request("localhost", "/api/warm").build(), HttpResponse.BodyHandlers.ofString());
        double before = ConnectClient.connects(proxy, "intercepted");

        for (int i = 0; i < 5; i++) {
            assertThat(client.send(request("localhost", "/api/keep-alive/" + i).build(), HttpResponse.BodyHandlers.ofString())
                    .statusCode()).isEqualTo(200);
        }

        assertThat(ConnectClient.connects(proxy, "intercepted")).as("no new CONNECT for the next five calls").isEqualTo(before);
    }

    @Test
    void aClientTimeoutThenRetryThroughTheInterceptionIsReplayedAndTheUpstreamExecutesOnce() throws Exception {
        String path = "/api/tickets/timeout";
        CompletableFuture<Void> gate = new CompletableFuture<>();
        gates.put(path, gate);
        HttpClient client = ConnectClient.client(proxy.port(), caPem());
        HttpRequest post = request("localhost", path).timeout(Duration.ofSeconds(2))
                .header("Idempotency-Key", "https-timeout-1").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"title\":\"printer on fire\"}")).build();

        int before = upstream.requestCount();
        // A timeout, or now and then the JDK client's "header parser received no bytes" for it (docs/testing.md).
        assertThatThrownBy(() -> client.send(post, HttpResponse.BodyHandlers.ofString())).isInstanceOf(java.io.IOException.class);
        upstream.awaitRequests(before + 1, Duration.ofSeconds(10));
        assertThat(requestsTo(path)).as("the first attempt is upstream, held").isEqualTo(1);

        CompletableFuture<HttpResponse<String>> retry = client.sendAsync(
                HttpRequest.newBuilder(post, (n, v) -> true).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        gate.complete(null);
        HttpResponse<String> r = retry.get(30, TimeUnit.SECONDS);

        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(r.body()).isEqualTo("made once");
        assertThat(r.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(requestsTo(path)).as("executed once").isEqualTo(1);
        RecordedRequest seen = upstream.requests().stream().filter(q -> q.path().equals(path)).findFirst().orElseThrow();
        assertThat(seen.header("Idempotency-Key")).isEqualTo("https-timeout-1");
        assertThat(seen.header("X-Call-Id")).isEqualTo(r.headers().firstValue("X-Call-Id").orElseThrow());
    }

    @Test
    void anUpstreamCertificateThatDoesNotVerifyIsA502NamingTheHostAndTheReason() throws Exception {
        HttpClient client = ConnectClient.client(proxy.port(), caPem());
        int before = upstream.requestCount();

        HttpResponse<String> r = client.send(request("127.0.0.1", "/api/x").build(), HttpResponse.BodyHandlers.ofString());

        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(r.body()).contains("\"type\":\"urn:idemproxy:problem:upstream-unreachable\"")
                .contains("TLS handshake failed with 127.0.0.1:" + upstream.port())
                .contains("PKIX path");
        assertThat(upstream.requestCount()).as("nothing was sent").isEqualTo(before);
    }

    /**
     * docs/https-proxy.md, "The Host upstream": a route with an upstream sends the intercepted call
     * there with that upstream's Host; the host the client asked for goes as X-Forwarded-Host.
     */
    @Test
    void anInterceptedCallToARouteWithAnUpstreamCarriesTheUpstreamsHost() throws Exception {
        HttpClient client = ConnectClient.client(proxy.port(), caPem());
        int before = staging.requestCount();

        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("https://api.example.test/v1/x"))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(r.body()).isEqualTo("staged");
        RecordedRequest seen = staging.awaitRequests(before + 1, Duration.ofSeconds(10)).get(before);
        assertThat(seen.header("Host")).isEqualTo(staging.uri().getRawAuthority());
        assertThat(seen.header("X-Forwarded-Host")).isEqualTo("api.example.test");
        assertThat(seen.header("X-Forwarded-Proto")).isEqualTo("https");
    }

    @Test
    void aConnectToAHostNoRouteInterceptsIsRefused403() throws Exception {
        double before = ConnectClient.connects(proxy, "refused");
        try (ConnectClient c = ConnectClient.connect(proxy.port(), "api.github.com:443", new byte[0])) {
            String head = c.readHead();
            String body = c.readToClose();
            assertThat(head).startsWith("HTTP/1.1 403 Forbidden\r\n").containsIgnoringCase("content-type: application/problem+json");
            assertThat(body).contains("\"type\":\"urn:idemproxy:problem:connect-refused\"").contains("api.github.com:443");
        }
        assertThat(ConnectClient.connects(proxy, "refused")).isEqualTo(before + 1);
    }

    @Test
    void theGeneratedCaFilesAndTheirDirectoryAreOwnerOnly() throws Exception {
        assertThat(Files.getPosixFilePermissions(caDir.resolve("new/ca.key"))).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.getPosixFilePermissions(caDir.resolve("new/ca.crt"))).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.getPosixFilePermissions(caDir.resolve("new"))).isEqualTo(PosixFilePermissions.fromString("rwx------"));
    }

    @Test
    void configShowsTheCaFileNamesButNeverTheKey() throws Exception {
        String config = HttpClient.newHttpClient().send(HttpRequest.newBuilder(proxy.admin("/config")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        String keyPem = Files.readString(caDir.resolve("new/ca.key"));
        String keyBase64 = keyPem.lines().filter(l -> !l.startsWith("-----")).findFirst().orElseThrow();

        assertThat(config).contains("\"forwardProxy\"").contains(caDir.resolve("new/ca.key").toString()).contains("\"intercept\" : true");
        assertThat(config).doesNotContain("PRIVATE KEY").doesNotContain(keyBase64);
    }
}
