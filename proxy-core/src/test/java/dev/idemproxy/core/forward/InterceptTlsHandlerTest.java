package dev.idemproxy.core.forward;

import static org.assertj.core.api.Assertions.assertThat;

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
}
