package dev.idemproxy.core.forward;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConnectLogTest {
    @Test
    void plainValuesStayAsTheyAre() {
        assertThat(ConnectLog.quoted("api.stripe.com:443")).isEqualTo("api.stripe.com:443");
        assertThat(ConnectLog.quoted("ok")).isEqualTo("ok");
    }

    @Test
    void valuesThatCouldForgeAFieldOrALineAreQuoted() {
        assertThat(ConnectLog.quoted("Received fatal alert: certificate_unknown"))
                .isEqualTo("\"Received fatal alert: certificate_unknown\"");
        assertThat(ConnectLog.quoted("a=b")).isEqualTo("\"a=b\"");
        assertThat(ConnectLog.quoted("x\"y\\z")).isEqualTo("\"x\\\"y\\\\z\"");
        assertThat(ConnectLog.quoted("line\nresult=forged\u2028\u0085")).isEqualTo("\"line\\u000aresult=forged\\u2028\\u0085\"");
        assertThat(ConnectLog.quoted("")).isEqualTo("\"\"");
    }
}
