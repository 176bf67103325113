package dev.idemproxy.core.forward;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;
import java.util.Set;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;

/**
 * The forward proxy's certificate authority (CONTRACT §11): read from its two PEM files, or, when
 * both are absent, generated there (EC P-256, valid ten years) with the key file's mode 0600 and
 * any directory created on the way 0700. The private key stays inside this package: no accessor
 * of it is public, and {@link #toString()} shows the subject only. This class is immutable and
 * thread-safe.
 */
public final class LocalCa {
    static final Duration VALIDITY = Duration.ofDays(3653);
    /** Certificates start an hour back, so a client whose clock runs a little behind accepts them. */
    static final Duration BACKDATE = Duration.ofHours(1);
    private static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OWNER_ONLY_DIR = PosixFilePermissions.fromString("rwx------");

    private final X509Certificate certificate;
    private final PrivateKey key;

    LocalCa(X509Certificate certificate, PrivateKey key) {
        this.certificate = requireNonNull(certificate, "certificate");
        this.key = requireNonNull(key, "key");
    }

    /**
     * The CA in {@code certFile} and {@code keyFile}, generated there first when both are absent.
     *
     * @throws IllegalArgumentException when one file exists without the other, or they cannot be
     *                                  used (the message names the file and why)
     * @throws IOException              when a new CA cannot be written
     */
    public static LocalCa loadOrCreate(Path certFile, Path keyFile, Clock clock, SecureRandom random) throws IOException {
        boolean cert = Files.exists(certFile);
        boolean key = Files.exists(keyFile);
        if (cert != key) {
            throw new IllegalArgumentException("forwardProxy.ca: " + (cert ? certFile : keyFile) + " exists but "
                    + (cert ? keyFile : certFile) + " does not (expected: both files, or neither and a new CA is generated)");
        }
        if (cert) {
            return CaFiles.read(certFile, keyFile, clock);
        }
        LocalCa ca = generate(clock, random);
        ca.write(certFile, keyFile);
        return ca;
    }

    /**
     * The CA in {@code certFile} and {@code keyFile}, which must both exist: checked as at start
     * (a CA certificate valid now, and its key), for a config check.
     *
     * @throws IllegalArgumentException when they cannot be used (the message names the file and why)
     */
    public static LocalCa load(Path certFile, Path keyFile, Clock clock) throws IOException {
        return CaFiles.read(certFile, keyFile, clock);
    }

    /**
     * As {@link #loadOrCreate(Path, Path, Clock, SecureRandom)}, where the CA's files may sit in
     * {@code dataDir}, the proxy's data directory: when the key is there, the directory is made
     * (or, existing, set to) mode 0700 first, as every directory the proxy writes must be (CONTRACT
     * §12). A CA elsewhere leaves its directory's mode as it is, unless the proxy creates it.
     */
    public static LocalCa loadOrCreate(Path certFile, Path keyFile, Clock clock, SecureRandom random, Path dataDir)
            throws IOException {
        Path keyDir = keyFile.toAbsolutePath().normalize().getParent();
        if (dataDir != null && keyDir.equals(dataDir.toAbsolutePath().normalize())) {
            if (Files.isDirectory(keyDir)) {
                try {
                    Files.setPosixFilePermissions(keyDir, OWNER_ONLY_DIR);
                } catch (UnsupportedOperationException e) {
                    // not a POSIX file system: nothing to set
                }
            } else {
                Files.createDirectories(keyDir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
            }
        }
        return loadOrCreate(certFile, keyFile, clock, random);
    }

    /** A new CA: EC P-256, self-signed, valid from an hour ago for ten years. */
    static LocalCa generate(Clock clock, SecureRandom random) {
        try {
            KeyPair keys = ecKeys(random);
            BigInteger serial = new BigInteger(96, random);
            X500Name name = new X500Name("CN=idemproxy local CA " + HexFormat.of().toHexDigits(serial.intValue())
                    + ",O=idemproxy");
            Instant now = clock.instant();
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, serial, Date.from(now.minus(BACKDATE)),
                    Date.from(now.plus(VALIDITY)), name, keys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(keys.getPublic()));
            X509Certificate cert = new JcaX509CertificateConverter()
                    .getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate())));
            return new LocalCa(cert, keys.getPrivate());
        } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
            throw new IllegalStateException("cannot generate the CA: " + e.getMessage(), e);
        }
    }

    static KeyPair ecKeys(SecureRandom random) throws GeneralSecurityException {
        KeyPairGenerator kpg = KeyPairGenerator.getInstance("EC");
        kpg.initialize(new ECGenParameterSpec("secp256r1"), random);
        return kpg.generateKeyPair();
    }

    /** Writes the key (0600), then the certificate (0600: no file the proxy writes is readable by others). */
    private void write(Path certFile, Path keyFile) throws IOException {
        StringWriter keyPem = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(keyPem)) {
            w.writeObject(new JcaPKCS8Generator(key, null));
        }
        writeOwnerOnly(keyFile, keyPem.toString());
        writeOwnerOnly(certFile, certificatePem());
    }

    private static void writeOwnerOnly(Path file, String text) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
        }
        Path tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp", PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE));
        try {
            try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.US_ASCII)) {
                w.write(text);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Checks that {@code key} signs what {@code certificate}'s public key verifies. */
    static boolean matches(X509Certificate certificate, PrivateKey key) {
        try {
            String alg = signatureAlgorithm(key);
            byte[] probe = "idemproxy".getBytes(StandardCharsets.US_ASCII);
            Signature s = Signature.getInstance(alg);
            s.initSign(key);
            s.update(probe);
            byte[] signed = s.sign();
            Signature v = Signature.getInstance(alg);
            v.initVerify(certificate.getPublicKey());
            v.update(probe);
            return v.verify(signed);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return false;
        }
    }

    /** SHA-256 with the key's algorithm: EC or RSA. */
    static String signatureAlgorithm(PrivateKey key) {
        switch (key.getAlgorithm()) {
            case "EC":
                return "SHA256withECDSA";
            case "RSA":
                return "SHA256withRSA";
            default:
                throw new IllegalArgumentException("a " + key.getAlgorithm() + " key (expected: an EC or RSA key)");
        }
    }

    public X509Certificate certificate() {
        return certificate;
    }

    /** The CA's private key: for minting leaf certificates only, never shown. */
    PrivateKey key() {
        return key;
    }

    /** The certificate as PEM text ({@code -----BEGIN CERTIFICATE-----} …), ending in a newline. */
    public String certificatePem() {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(out)) {
            w.writeObject(certificate);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write PEM", e);
        }
        return out.toString();
    }

    /** The subject only: never the key. */
    @Override
    public String toString() {
        return "LocalCa[" + certificate.getSubjectX500Principal().getName() + "]";
    }
}
