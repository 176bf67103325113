package dev.idemproxy.core.forward;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
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
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Mints short-lived leaf certificates for intercepted hosts, signed by the {@link LocalCa}: one
 * subject alternative name (the host, as a DNS name or an IP address), server authentication
 * only, valid from an hour ago for {@link #VALIDITY} (never past the CA's own end). Every leaf
 * shares one EC P-256 key made at construction and kept in memory only, so a mint costs one
 * signature. Time and randomness are injected. Thread-safe.
 */
final class LeafMinter {
    static final Duration VALIDITY = Duration.ofHours(24);

    private final LocalCa ca;
    private final Clock clock;
    private final SecureRandom random;
    private final KeyPair leafKeys;
    private final String signatureAlgorithm;

    LeafMinter(LocalCa ca, Clock clock, SecureRandom random) {
        this.ca = requireNonNull(ca, "ca");
        this.clock = requireNonNull(clock, "clock");
        this.random = requireNonNull(random, "random");
        this.signatureAlgorithm = LocalCa.signatureAlgorithm(ca.key());
        try {
            this.leafKeys = LocalCa.ecKeys(random);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make the leaf key: " + e.getMessage(), e);
        }
    }

    /** The private key of every leaf. */
    PrivateKey leafKey() {
        return leafKeys.getPrivate();
    }

    LocalCa ca() {
        return ca;
    }

    /**
     * A certificate for {@code host}: a DNS name (lower-case) or an IP address literal.
     *
     * @throws IllegalStateException when signing fails
     */
    X509Certificate mint(String host) {
        Instant now = clock.instant();
        Instant end = now.plus(VALIDITY);
        Instant caEnd = ca.certificate().getNotAfter().toInstant();
        if (end.isAfter(caEnd)) {
            end = caEnd;
        }
        boolean ip = isIpLiteral(host);
        X500Name subject = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, host).addRDN(BCStyle.O, "idemproxy").build();
        try {
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(ca.certificate(), new BigInteger(96, random),
                    Date.from(now.minus(LocalCa.BACKDATE)), Date.from(end), subject, leafKeys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
                    .addExtension(Extension.subjectAlternativeName, false,
                            new GeneralNames(new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, host)))
                    .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(leafKeys.getPublic()))
                    .addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(ca.certificate()));
            ContentSigner signer = new JcaContentSignerBuilder(signatureAlgorithm).build(ca.key());
            return new JcaX509CertificateConverter().getCertificate(b.build(signer));
        } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
            throw new IllegalStateException("cannot mint a certificate for " + host + ": " + e.getMessage(), e);
        }
    }

    static boolean isIpLiteral(String host) {
        return host.indexOf(':') >= 0 || host.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
    }
}
