package dev.idemproxy.core.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idemproxy.core.testing.TestClock;
import dev.idemproxy.core.testing.TestCertificates;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The CA's files: generated with owner-only modes, read back, and refused with the reason when unusable. */
class LocalCaTest {
    final TestClock clock = new TestClock(Instant.parse("2030-01-01T00:00:00Z"));
    final SecureRandom random = new SecureRandom();
    final Path dir = tempDir();

    static Path tempDir() {
        try {
            return Files.createTempDirectory("idemproxy-ca");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterEach
    void delete() throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    @Test
    void aMissingCaIsGeneratedEcP256ForTenYearsWithOwnerOnlyFilesAndDirectories() throws Exception {
        Path cert = dir.resolve("new/sub/ca.crt");
        Path key = dir.resolve("new/sub/ca.key");

        LocalCa ca = LocalCa.loadOrCreate(cert, key, clock, random);

        assertThat(Files.getPosixFilePermissions(key)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.getPosixFilePermissions(cert)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.getPosixFilePermissions(dir.resolve("new"))).isEqualTo(PosixFilePermissions.fromString("rwx------"));
        assertThat(Files.getPosixFilePermissions(dir.resolve("new/sub"))).isEqualTo(PosixFilePermissions.fromString("rwx------"));
        try (Stream<Path> left = Files.list(dir.resolve("new/sub"))) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("ca.crt", "ca.key");
        }
        X509Certificate c = ca.certificate();
        assertThat(c.getPublicKey().getAlgorithm()).isEqualTo("EC");
        assertThat(c.getPublicKey().toString()).contains("secp256r1");
        assertThat(c.getBasicConstraints()).isEqualTo(0);
        assertThat(c.getKeyUsage()[5]).as("keyCertSign").isTrue();
        assertThat(c.getNotAfter().toInstant()).isEqualTo(clock.instant().plus(Duration.ofDays(3653)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        assertThat(c.getNotBefore().toInstant()).isEqualTo(clock.instant().minus(Duration.ofHours(1)));
        c.verify(c.getPublicKey());
        assertThat(Files.readString(key)).startsWith("-----BEGIN PRIVATE KEY-----");
        assertThat(ca.toString()).startsWith("LocalCa[").contains("CN=idemproxy local CA ").doesNotContain("PRIVATE");
    }

    @Test
    void anExistingCaIsReadBackUnchanged() throws Exception {
        Path cert = dir.resolve("ca.crt");
        Path key = dir.resolve("ca.key");
        LocalCa first = LocalCa.loadOrCreate(cert, key, clock, random);
        String pem = Files.readString(cert);

        LocalCa again = LocalCa.loadOrCreate(cert, key, clock, random);

        assertThat(again.certificate()).isEqualTo(first.certificate());
        assertThat(Files.readString(cert)).isEqualTo(pem).isEqualTo(again.certificatePem());
        X509Certificate parsed = (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(again.certificatePem().getBytes(StandardCharsets.US_ASCII)));
        assertThat(parsed).isEqualTo(first.certificate());
    }

    @Test
    void oneFileWithoutTheOtherIsRefusedNamingBoth() throws Exception {
        Path cert = dir.resolve("ca.crt");
        Path key = dir.resolve("ca.key");
        LocalCa.loadOrCreate(cert, key, clock, random);
        Files.delete(key);

        assertThatThrownBy(() -> LocalCa.loadOrCreate(cert, key, clock, random))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("forwardProxy.ca: " + cert + " exists but " + key
                        + " does not (expected: both files, or neither and a new CA is generated)");
        assertThat(key).doesNotExist();
    }

    @Test
    void aCertificateThatIsNoCaIsRefused() throws Exception {
        try (TestCertificates certs = TestCertificates.create()) {
            assertThatThrownBy(() -> LocalCa.load(certs.serverCertChainPemFile(), certs.serverKeyPemFile(), java.time.Clock.systemUTC()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is not a CA certificate (expected: basicConstraints CA:true)");
        }
    }

    @Test
    void aKeyOfAnotherCertificateIsRefused() throws Exception {
        Path cert = dir.resolve("ca.crt");
        Path key = dir.resolve("ca.key");
        LocalCa.loadOrCreate(cert, key, clock, random);
        Path otherKey = dir.resolve("other/ca.key");
        LocalCa.loadOrCreate(dir.resolve("other/ca.crt"), otherKey, clock, random);

        assertThatThrownBy(() -> LocalCa.load(cert, otherKey, clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("forwardProxy.ca.key: " + otherKey + " is not the key of " + cert
                        + " (expected: the CA certificate's private key, EC or RSA)");
    }

    @Test
    void anExpiredCaIsRefused() throws Exception {
        Path cert = dir.resolve("ca.crt");
        Path key = dir.resolve("ca.key");
        LocalCa.loadOrCreate(cert, key, clock, random);
        clock.advance(Duration.ofDays(3654));

        assertThatThrownBy(() -> LocalCa.load(cert, key, clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(", not now (expected: a CA valid now)");
    }

    @Test
    void filesThatAreNotPemAreRefusedWithoutShowingThem() throws Exception {
        Path cert = dir.resolve("ca.crt");
        Path key = dir.resolve("ca.key");
        Files.writeString(cert, "not a certificate");
        Files.writeString(key, "secret-looking text");

        assertThatThrownBy(() -> LocalCa.load(cert, key, clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("forwardProxy.ca.cert: " + cert + " holds no PEM block (expected: a PEM file)");
        LocalCa.loadOrCreate(dir.resolve("good.crt"), dir.resolve("good.key"), clock, random);
        assertThatThrownBy(() -> LocalCa.load(dir.resolve("good.crt"), key, clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("secret-looking")
                .hasMessage("forwardProxy.ca.key: " + key + " holds no PEM block (expected: a PEM file)");
    }

    @Test
    void inTheDataDirectoryTheDirectoryIsSetToOwnerOnlyEvenWhenItExisted() throws Exception {
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path elsewhere = dir.resolve("elsewhere");
        Files.createDirectories(elsewhere);
        Files.setPosixFilePermissions(elsewhere, PosixFilePermissions.fromString("rwxr-xr-x"));

        LocalCa.loadOrCreate(data.resolve("ca.crt"), data.resolve("ca.key"), clock, random, data);
        LocalCa.loadOrCreate(elsewhere.resolve("ca.crt"), elsewhere.resolve("ca.key"), clock, random, data);

        assertThat(Files.getPosixFilePermissions(data)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
        assertThat(Files.getPosixFilePermissions(elsewhere)).as("not the proxy's to change")
                .isEqualTo(PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThat(Files.getPosixFilePermissions(elsewhere.resolve("ca.key"))).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.getPosixFilePermissions(data.resolve("ca.key"))).isEqualTo(PosixFilePermissions.fromString("rw-------"));
    }
}
