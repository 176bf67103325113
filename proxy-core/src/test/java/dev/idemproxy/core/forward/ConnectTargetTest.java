package dev.idemproxy.core.forward;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class ConnectTargetTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "api.stripe.com:443, api.stripe.com, 443, api.stripe.com:443, api.stripe.com",
        "API.Stripe.COM.:8443, api.stripe.com, 8443, api.stripe.com:8443, api.stripe.com:8443",
        "127.0.0.1:1, 127.0.0.1, 1, 127.0.0.1:1, 127.0.0.1:1",
        "'[::1]:65535', ::1, 65535, '[::1]:65535', '[::1]:65535'",
        "localhost:443, localhost, 443, localhost:443, localhost",
    })
    void authorityFormIsReadLowerCaseWithoutTrailingDot(String in, String host, int port, String authority, String hostHeader) {
        ConnectTarget t = ConnectTarget.parse(in);
        assertThat(t).isNotNull();
        assertThat(t.host()).isEqualTo(host);
        assertThat(t.port()).isEqualTo(port);
        assertThat(t.authority()).isEqualTo(authority);
        assertThat(t.hostHeader()).isEqualTo(hostHeader);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"api.stripe.com", "api.stripe.com:", ":443", "api.stripe.com:0", "api.stripe.com:65536",
        "api.stripe.com:44x", "api.stripe.com:+443", "http://api.stripe.com:443", "/path", "a b:443", "user@host:443",
        "host_name:443", "-bad.example:443", "bad-.example:443", "a..b:443", "[::1:443", "[zz::1]:443", "::1:443",
        "api.stripe.com:4430000", "*:443"})
    void anythingButHostColonPortIsRefused(String in) {
        assertThat(ConnectTarget.parse(in)).isNull();
    }

    @Test
    void ipAddressesAreToldFromNames() {
        assertThat(ConnectTarget.parse("10.0.0.1:443").isIpAddress()).isTrue();
        assertThat(ConnectTarget.parse("[2001:db8::1]:443").isIpAddress()).isTrue();
        assertThat(ConnectTarget.parse("1.example:443").isIpAddress()).isFalse();
    }
}
