package dev.idemproxy.core.testing;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Date;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * TLS material generated at test time with BouncyCastle (nothing is committed): a CA, a server
 * certificate for {@code localhost} and {@code 127.0.0.1} (SAN dns + ip) signed by it, and a second,
 * unrelated CA whose trust must make verification fail. Keys are EC P-256; certificates are valid
 * from an hour ago for a day. PEM files are written into a fresh temporary directory that
 * {@link #close()} deletes. Immutable after {@link #create()}; thread-safe.
 *
 * <pre>{@code
 * try (TestCertificates certs = TestCertificates.create();
 *      TestUpstream upstream = TestUpstream.start(certs.serverSslContext())) {
 *     // route.upstream = upstream.uri(), route tls.caFile = certs.caPemFile()
 * }
 * }</pre>
 */
public final class TestCertificates implements AutoCloseable {

    private static final Duration VALIDITY = Duration.ofDays(1);

    private final Path dir;
    private final Issued ca;
    private final Issued server;
    private final Issued unrelatedCa;
    private final Path caPemFile;
    private final Path unrelatedCaPemFile;
    private final Path serverCertChainPemFile;
    private final Path serverKeyPemFile;

    private record Issued(KeyPair keys, X509Certificate certificate) {
    }

    private TestCertificates(Path dir) throws GeneralSecurityException, OperatorCreationException, IOException {
        SecureRandom random = new SecureRandom();
        this.dir = dir;
        this.ca = selfSignedCa("idemproxy test CA", random);
        this.unrelatedCa = selfSignedCa("idemproxy unrelated test CA", random);
        this.server = serverCert(ca, random);
        this.caPemFile = writePem(dir.resolve("ca.pem"), ca.certificate());
        this.unrelatedCaPemFile = writePem(dir.resolve("unrelated-ca.pem"), unrelatedCa.certificate());
        this.serverCertChainPemFile = writePem(dir.resolve("server-chain.pem"), server.certificate(), ca.certificate());
        this.serverKeyPemFile = writePem(dir.resolve("server-key.pem"), new JcaPKCS8Generator(server.keys().getPrivate(), null));
    }

    /** Generates a fresh set in a new temporary directory. */
    public static TestCertificates create() {
        try {
            return new TestCertificates(Files.createTempDirectory("idemproxy-certs"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot generate test certificates", e);
        }
    }

    // ------------------------------------------------------------------ the CA

    public X509Certificate caCertificate() {
        return ca.certificate();
    }

    /** The CA certificate as PEM, e.g. for a route's {@code tls.caFile}. */
    public Path caPemFile() {
        return caPemFile;
    }

    /** A JDK client context (for {@code HttpClient.newBuilder().sslContext(…)}) trusting only the CA. */
    public SSLContext clientSslContext() {
        return trusting(ca.certificate());
    }

    // ------------------------------------------------------------------ the server

    /** The server certificate: CN and SAN {@code localhost}, SAN IP {@code 127.0.0.1}, signed by the CA. */
    public X509Certificate serverCertificate() {
        return server.certificate();
    }

    public PrivateKey serverPrivateKey() {
        return server.keys().getPrivate();
    }

    /** PEM of the server certificate followed by the CA certificate. */
    public Path serverCertChainPemFile() {
        return serverCertChainPemFile;
    }

    /** PEM (PKCS#8, unencrypted) of the server's private key. */
    public Path serverKeyPemFile() {
        return serverKeyPemFile;
    }

    /** A new Netty server context presenting the server certificate and the CA, e.g. for {@link TestUpstream#start(SslContext)}. */
    public SslContext serverSslContext() {
        try {
            return SslContextBuilder.forServer(server.keys().getPrivate(), server.certificate(), ca.certificate()).build();
        } catch (SSLException e) {
            throw new IllegalStateException("cannot build the server SslContext", e);
        }
    }

    // ------------------------------------------------------------------ the unrelated CA

    /** A CA that signed nothing here: trusting it instead of {@link #caCertificate()} must fail verification. */
    public X509Certificate unrelatedCaCertificate() {
        return unrelatedCa.certificate();
    }

    public Path unrelatedCaPemFile() {
        return unrelatedCaPemFile;
    }

    /** A JDK client context trusting only the unrelated CA: handshakes with the server must fail. */
    public SSLContext unrelatedClientSslContext() {
        return trusting(unrelatedCa.certificate());
    }

    /** Deletes the PEM files and their directory. */
    @Override
    public void close() {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ------------------------------------------------------------------ generation

    private static KeyPair ecKeys(SecureRandom random) throws GeneralSecurityException {
        KeyPairGenerator kpg = KeyPairGenerator.getInstance("EC");
        kpg.initialize(new ECGenParameterSpec("secp256r1"), random);
        return kpg.generateKeyPair();
    }

    private static Issued selfSignedCa(String cn, SecureRandom random)
            throws GeneralSecurityException, OperatorCreationException, IOException {
        KeyPair keys = ecKeys(random);
        X500Name name = new X500Name("CN=" + cn);
        Instant now = Instant.now();
        JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
        X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, new BigInteger(64, random),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(VALIDITY)), name, keys.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(keys.getPublic()));
        return new Issued(keys, sign(b, keys.getPrivate()));
    }

    private static Issued serverCert(Issued ca, SecureRandom random)
            throws GeneralSecurityException, OperatorCreationException, IOException {
        KeyPair keys = ecKeys(random);
        Instant now = Instant.now();
        JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
        GeneralNames san = new GeneralNames(new GeneralName[] {
            new GeneralName(GeneralName.dNSName, "localhost"),
            new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
        });
        X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(ca.certificate(), new BigInteger(64, random),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(VALIDITY)),
                new X500Name("CN=localhost"), keys.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
                .addExtension(Extension.subjectAlternativeName, false, san)
                .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(keys.getPublic()))
                .addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(ca.certificate()));
        return new Issued(keys, sign(b, ca.keys().getPrivate()));
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey issuerKey)
            throws GeneralSecurityException, OperatorCreationException {
        return new JcaX509CertificateConverter().getCertificate(
                b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey)));
    }

    private static Path writePem(Path file, Object... objects) throws IOException {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.US_ASCII);
             JcaPEMWriter pem = new JcaPEMWriter(w)) {
            for (Object o : objects) {
                pem.writeObject(o);
            }
        }
        return file;
    }

    private static SSLContext trusting(X509Certificate anchor) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", anchor);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot build a client SSLContext", e);
        }
    }
}
