package dev.idemproxy.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link TestCertificates} with a TLS {@link TestUpstream}: trusted by its CA, rejected under the unrelated one. */
@ExtendWith(LeakDetection.class)
class TestCertificatesTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static TestCertificates certs;
    private static TestUpstream upstream;

    @BeforeAll
    static void start() {
        certs = TestCertificates.create();
        upstream = TestUpstream.start(certs.serverSslContext());
    }

    @AfterAll
    static void stop() {
        upstream.close();
        certs.close();
    }

    private static HttpClient trusting(SSLContext ssl) {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(ssl).connectTimeout(WAIT).build();
    }

    @Test
    void clientTrustingTheCaAcceptsTheServerByIpAndName() throws Exception {
        assertThat(upstream.uri().toString()).startsWith("https://127.0.0.1:");
        HttpClient client = trusting(certs.clientSslContext());

        HttpResponse<String> byIp = client.send(HttpRequest.newBuilder(upstream.uri().resolve("/tls")).timeout(WAIT).build(),
                BodyHandlers.ofString());
        HttpResponse<String> byName = client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + upstream.port() + "/tls"))
                .timeout(WAIT).build(), BodyHandlers.ofString());

        assertThat(byIp.statusCode()).isEqualTo(200);
        assertThat(byName.body()).isEqualTo("ok");
        assertThat(upstream.requests()).extracting(RecordedRequest::uri).contains("/tls");
    }

    @Test
    void clientTrustingTheUnrelatedCaRejectsTheServer() {
        HttpClient client = trusting(certs.unrelatedClientSslContext());
        assertThatThrownBy(() -> client.send(HttpRequest.newBuilder(upstream.uri()).timeout(WAIT).build(),
                BodyHandlers.ofString()))
                .isInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void pemFilesHoldTheMaterial() throws Exception {
        X509Certificate ca = readOne(certs.caPemFile());
        assertThat(ca).isEqualTo(certs.caCertificate());
        assertThat(readOne(certs.unrelatedCaPemFile())).isEqualTo(certs.unrelatedCaCertificate());
        assertThat(ca.getBasicConstraints()).isGreaterThanOrEqualTo(0);

        X509Certificate server = certs.serverCertificate();
        server.verify(ca.getPublicKey());
        assertThat(server.getSubjectAlternativeNames())
                .contains(List.of(2, "localhost"), List.of(7, "127.0.0.1"));

        SslContext fromFiles = SslContextBuilder.forServer(certs.serverCertChainPemFile().toFile(),
                certs.serverKeyPemFile().toFile()).build();
        assertThat(fromFiles.isServer()).isTrue();
    }

    @Test
    void closeDeletesTheFiles() {
        TestCertificates other = TestCertificates.create();
        Path ca = other.caPemFile();
        assertThat(ca).exists();
        other.close();
        assertThat(ca).doesNotExist();
        assertThat(ca.getParent()).doesNotExist();
        assertThat(other.caCertificate()).isNotEqualTo(certs.caCertificate());
    }

    private static X509Certificate readOne(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }
}
