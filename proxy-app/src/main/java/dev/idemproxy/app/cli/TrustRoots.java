package dev.idemproxy.app.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * The system's trust roots as PEM, for {@code idemproxy ca bundle}: the first of the operating
 * system's bundle files that exists (Debian and Ubuntu, Fedora and RHEL, openSUSE, Alpine), or,
 * where there is none, the JVM's default trust anchors. This class is stateless.
 */
final class TrustRoots {
    static final List<Path> SYSTEM_BUNDLES = List.of(
            Path.of("/etc/ssl/certs/ca-certificates.crt"),
            Path.of("/etc/pki/tls/certs/ca-bundle.crt"),
            Path.of("/etc/ssl/ca-bundle.pem"),
            Path.of("/etc/ssl/cert.pem"));

    private TrustRoots() {}

    static String pem() throws IOException {
        for (Path p : SYSTEM_BUNDLES) {
            if (Files.isRegularFile(p) && Files.isReadable(p)) {
                return Files.readString(p, StandardCharsets.US_ASCII);
            }
        }
        return jvmAnchors();
    }

    /** The JVM's default trust anchors, each as a PEM block. */
    static String jvmAnchors() throws IOException {
        try {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init((KeyStore) null);
            StringBuilder sb = new StringBuilder();
            Base64.Encoder b64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
            for (TrustManager tm : tmf.getTrustManagers()) {
                if (tm instanceof X509TrustManager x) {
                    for (X509Certificate c : x.getAcceptedIssuers()) {
                        sb.append("-----BEGIN CERTIFICATE-----\n").append(b64.encodeToString(c.getEncoded()))
                                .append("\n-----END CERTIFICATE-----\n");
                    }
                }
            }
            return sb.toString();
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read the JVM's trust anchors: " + e.getMessage(), e);
        }
    }
}
