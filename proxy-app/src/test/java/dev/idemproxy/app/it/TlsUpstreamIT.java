package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.TestCertificates;
import dev.idemproxy.core.testing.TestUpstream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** TLS originated by the proxy: verified against the route's CA file, refused otherwise. */
@ExtendWith(LeakDetection.class)
class TlsUpstreamIT {
    static TestCertificates certs;
    static TestUpstream upstream;
    static RunningProxy proxy;
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() throws Exception {
        certs = TestCertificates.create();
        upstream = TestUpstream.start(certs.serverSslContext());
        upstream.defaultAction(respond(200, "secure hello"));
        String https = "https://localhost:" + upstream.port();
        proxy = RunningProxy.start(""
                + "routes:\n"
                + "  - name: trusted\n"
                + "    match: { pathPrefix: /trusted }\n"
                + "    upstream: " + https + "\n"
                + "    tls: { caFile: \"" + certs.caPemFile() + "\" }\n"
                + "  - name: by-ip\n"
                + "    match: { pathPrefix: /by-ip }\n"
                + "    upstream: https://127.0.0.1:" + upstream.port() + "\n"
                + "    tls: { caFile: \"" + certs.caPemFile() + "\" }\n"
                + "  - name: wrong-ca\n"
                + "    match: { pathPrefix: /wrong-ca }\n"
                + "    upstream: " + https + "\n"
                + "    tls: { caFile: \"" + certs.unrelatedCaPemFile() + "\" }\n"
                + "  - name: wrong-name\n"
                + "    match: { pathPrefix: /wrong-name }\n"
                + "    upstream: " + https + "\n"
                + "    tls: { caFile: \"" + certs.caPemFile() + "\", serverName: other.example }\n"
                + "  - name: default-trust\n"
                + "    match: { pathPrefix: /default-trust }\n"
                + "    upstream: " + https + "\n");
    }

    @AfterAll
    static void stop() {
        proxy.close();
        upstream.close();
        certs.close();
    }

    static HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(proxy.uri(path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void httpsUpstreamVerifiedAgainstTheRouteCaFile() throws Exception {
        HttpResponse<String> r = get("/trusted/x");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("secure hello");
        assertThat(get("/by-ip/x").statusCode()).isEqualTo(200);
    }

    @Test
    void certificateFromAnotherCaIsRefusedWith502() throws Exception {
        HttpResponse<String> r = get("/wrong-ca/x");
        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.body()).contains("urn:idemproxy:problem:upstream-unreachable").contains("TLS handshake failed");
    }

    @Test
    void certificateForAnotherHostIsRefusedWith502() throws Exception {
        assertThat(get("/wrong-name/x").statusCode()).isEqualTo(502);
    }

    @Test
    void selfIssuedCertificateIsRefusedByTheDefaultTrustStore() throws Exception {
        assertThat(get("/default-trust/x").statusCode()).isEqualTo(502);
    }
}
