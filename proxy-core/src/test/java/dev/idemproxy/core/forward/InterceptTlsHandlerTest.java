package dev.idemproxy.core.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.DecoderException;
import java.nio.channels.ClosedChannelException;
import javax.crypto.BadPaddingException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

class InterceptTlsHandlerTest {
    final ConnectTarget target = ConnectTarget.parse("api.stripe.com:443");

    @Test
    void theLeafIsForTheSniNameWhenTheClientSendsOne() {
        assertThat(InterceptTlsHandler.leafName("API.Stripe.com.", target)).isEqualTo("api.stripe.com");
        assertThat(InterceptTlsHandler.leafName("files.stripe.com", target)).isEqualTo("files.stripe.com");
    }

    @Test
    void withoutUsableSniTheLeafIsForTheConnectHost() {
        assertThat(InterceptTlsHandler.leafName(null, target)).isEqualTo("api.stripe.com");
        assertThat(InterceptTlsHandler.leafName("bad name", target)).isEqualTo("api.stripe.com");
        assertThat(InterceptTlsHandler.leafName("x".repeat(300), target)).isEqualTo("api.stripe.com");
        assertThat(InterceptTlsHandler.leafName(null, ConnectTarget.parse("127.0.0.1:8443"))).isEqualTo("127.0.0.1");
    }

    @Test
    void aClientThatRefusesTheCertificateIsToldToTrustTheProxysCa() {
        assertThat(InterceptTlsHandler.failure(new DecoderException(new SSLHandshakeException("Received fatal alert: unknown_ca"))))
                .isEqualTo(InterceptTlsHandler.DISTRUST)
                .startsWith("client does not trust the proxy's CA (run: idemproxy ca cert --config FILE");
        assertThat(InterceptTlsHandler.failure(new SSLHandshakeException("Received fatal alert: certificate_unknown")))
                .isEqualTo(InterceptTlsHandler.DISTRUST);
        assertThat(InterceptTlsHandler.failure(new SSLHandshakeException("Received fatal alert: bad_certificate")))
                .isEqualTo(InterceptTlsHandler.DISTRUST);
    }

    @Test
    void anAlertInTheClearWhereTls13WantsItEncryptedIsOpenSslRefusingTheCertificate() {
        SSLHandshakeException e = new SSLHandshakeException(
                "Insufficient buffer remaining for AEAD cipher fragment (2). Needs to be more than tag size (16)");
        e.initCause(new BadPaddingException("Insufficient buffer remaining for AEAD cipher fragment (2). Needs to be more than tag size (16)"));
        assertThat(InterceptTlsHandler.failure(e)).isEqualTo(InterceptTlsHandler.DISTRUST);
    }

    @Test
    void aConnectionClosedOnTheCertificateSaysWhatWasSeen() {
        assertThat(InterceptTlsHandler.failure(new ClosedChannelException()))
                .startsWith("client does not trust the proxy's CA (it closed the connection on the proxy's certificate; run: idemproxy ca cert");
        assertThat(InterceptTlsHandler.failure(new SSLHandshakeException("Connection closed while SSL/TLS handshake was in progress")))
                .contains("it closed the connection on the proxy's certificate");
    }

    @Test
    void otherFailuresAreToldAsTheyAre() {
        assertThat(InterceptTlsHandler.failure(new SSLHandshakeException("Received fatal alert: protocol_version")))
                .isEqualTo("SSLHandshakeException: Received fatal alert: protocol_version");
        assertThat(InterceptTlsHandler.failure(new SSLHandshakeException("no cipher suites in common")))
                .isEqualTo("SSLHandshakeException: no cipher suites in common");
        assertThat(InterceptTlsHandler.failure(new SSLHandshakeException("Insufficient buffer remaining for AEAD cipher fragment (7)")))
                .startsWith("SSLHandshakeException: Insufficient buffer");
    }
}
