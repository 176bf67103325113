package dev.idemproxy.core.forward;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.Date;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMException;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a CA from its PEM files and checks that it can sign: the certificate is a CA's, valid now,
 * and the key is its key. Keys may be PKCS#8 ({@code PRIVATE KEY}) or the traditional
 * {@code EC PRIVATE KEY} / {@code RSA PRIVATE KEY}, unencrypted. Problems are thrown as
 * {@link IllegalArgumentException}s naming the file and what is wrong, never the key's content.
 * This class is stateless.
 */
final class CaFiles {
    private static final Logger LOG = LoggerFactory.getLogger(CaFiles.class);

    private CaFiles() {}

    static LocalCa read(Path certFile, Path keyFile, Clock clock) throws IOException {
        X509Certificate cert = certificate(certFile);
        PrivateKey key = key(keyFile);
        if (cert.getBasicConstraints() < 0) {
            throw new IllegalArgumentException("forwardProxy.ca.cert: " + certFile
                    + " is not a CA certificate (expected: basicConstraints CA:true)");
        }
        Date now = Date.from(clock.instant());
        if (now.after(cert.getNotAfter()) || now.before(cert.getNotBefore())) {
            throw new IllegalArgumentException("forwardProxy.ca.cert: " + certFile + " is valid from " + cert.getNotBefore().toInstant()
                    + " to " + cert.getNotAfter().toInstant() + ", not now (expected: a CA valid now)");
        }
        if (!LocalCa.matches(cert, key)) {
            throw new IllegalArgumentException("forwardProxy.ca.key: " + keyFile + " is not the key of " + certFile
                    + " (expected: the CA certificate's private key, EC or RSA)");
        }
        warnIfShared(keyFile);
        return new LocalCa(cert, key);
    }

    private static X509Certificate certificate(Path file) throws IOException {
        Object o = firstObject(file, "forwardProxy.ca.cert");
        if (!(o instanceof X509CertificateHolder holder)) {
            throw new IllegalArgumentException("forwardProxy.ca.cert: " + file + " holds no certificate (expected: a PEM "
                    + "-----BEGIN CERTIFICATE----- block)");
        }
        try {
            return new JcaX509CertificateConverter().getCertificate(holder);
        } catch (CertificateException e) {
            throw new IllegalArgumentException("forwardProxy.ca.cert: " + file + ": " + e.getMessage(), e);
        }
    }

    private static PrivateKey key(Path file) throws IOException {
        Object o = firstObject(file, "forwardProxy.ca.key");
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        try {
            if (o instanceof PrivateKeyInfo info) {
                return checked(converter.getPrivateKey(info), file);
            }
            if (o instanceof PEMKeyPair pair) {
                return checked(converter.getKeyPair(pair).getPrivate(), file);
            }
        } catch (PEMException e) {
            throw new IllegalArgumentException("forwardProxy.ca.key: " + file + " cannot be read as a key (expected: an "
                    + "unencrypted PEM private key)", e);
        }
        String what = o instanceof PEMEncryptedKeyPair || o instanceof PKCS8EncryptedPrivateKeyInfo ? "an encrypted key"
                : "no private key";
        throw new IllegalArgumentException("forwardProxy.ca.key: " + file + " holds " + what
                + " (expected: an unencrypted PEM -----BEGIN PRIVATE KEY----- block)");
    }

    private static PrivateKey checked(PrivateKey key, Path file) {
        try {
            LocalCa.signatureAlgorithm(key);
            return key;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("forwardProxy.ca.key: " + file + " holds " + e.getMessage());
        }
    }

    private static Object firstObject(Path file, String key) throws IOException {
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new IllegalArgumentException(key + ": " + file + " cannot be read (expected: a readable PEM file)");
        }
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII); PEMParser pem = new PEMParser(r)) {
            Object o = pem.readObject();
            if (o == null) {
                throw new IllegalArgumentException(key + ": " + file + " holds no PEM block (expected: a PEM file)");
            }
            return o;
        } catch (IOException | RuntimeException e) {
            if (e instanceof IllegalArgumentException iae && iae.getMessage().startsWith(key)) {
                throw iae;
            }
            throw new IllegalArgumentException(key + ": " + file + " is not valid PEM (expected: a PEM file)", e);
        }
    }

    /**
     * A CA key anyone can read is worth a warning: whoever holds it can mint certificates the
     * agents trust. (Group read is usual where a Kubernetes Secret is mounted for the pod's fsGroup.)
     */
    private static void warnIfShared(Path keyFile) {
        try {
            if (Files.getPosixFilePermissions(keyFile).contains(PosixFilePermission.OTHERS_READ)) {
                LOG.warn("the CA key {} can be read by any user (expected: mode 0600, or 0440 for a group of its own)", keyFile);
            }
        } catch (IOException | UnsupportedOperationException e) {
            // not a POSIX file system: nothing to check
        }
    }
}
