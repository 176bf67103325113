package dev.idemproxy.core.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.TestClock;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Leaf certificates: one name, server authentication, short-lived, signed by the CA. */
class LeafMinterTest {
    final TestClock clock = new TestClock(Instant.parse("2030-01-01T00:00:00Z"));
    final LocalCa ca = LocalCa.generate(clock, new SecureRandom());
    final LeafMinter minter = new LeafMinter(ca, clock, new SecureRandom());

    @Test
    void aLeafNamesItsHostAndIsSignedByTheCa() throws Exception {
        X509Certificate leaf = minter.mint("api.stripe.com");

        leaf.verify(ca.certificate().getPublicKey());
        assertThat(leaf.getIssuerX500Principal()).isEqualTo(ca.certificate().getSubjectX500Principal());
        assertThat(sans(leaf)).containsExactly(List.of(2, "api.stripe.com"));
        assertThat(leaf.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertThat(leaf.getBasicConstraints()).isEqualTo(-1);
        assertThat(LocalCa.matches(leaf, minter.leafKey())).as("the leaf carries the shared leaf key").isTrue();
    }

    @Test
    void anIpAddressGetsAnIpSan() throws Exception {
        assertThat(sans(minter.mint("127.0.0.1"))).containsExactly(List.of(7, "127.0.0.1"));
        assertThat(sans(minter.mint("::1"))).containsExactly(List.of(7, "0:0:0:0:0:0:0:1"));
    }

    @Test
    void aLeafIsValidFromAnHourAgoForADay() {
        X509Certificate leaf = minter.mint("a.example");
        assertThat(leaf.getNotBefore().toInstant()).isEqualTo(clock.instant().minus(Duration.ofHours(1)));
        assertThat(leaf.getNotAfter().toInstant()).isEqualTo(clock.instant().plus(Duration.ofHours(24)));
    }

    @Test
    void aLeafNeverOutlivesItsCa() {
        clock.advance(Duration.ofDays(3653).minusHours(2));
        X509Certificate leaf = minter.mint("a.example");
        assertThat(leaf.getNotAfter()).isEqualTo(ca.certificate().getNotAfter());
    }

    @Test
    void everyLeafHasItsOwnSerial() {
        assertThat(minter.mint("a.example").getSerialNumber()).isNotEqualTo(minter.mint("a.example").getSerialNumber());
    }

    private static Collection<List<?>> sans(X509Certificate c) throws Exception {
        return c.getSubjectAlternativeNames();
    }
}
