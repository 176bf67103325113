package dev.idemproxy.core.tries;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.secret.Redactor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HeadsTest {
    private final Redactor redactor = Redactor.of(List.of("X-Secret"), List.of("sig"));

    @Test
    void aRequestHeadShowsCredentialsSecretQueryValuesAndUserInfoAsMasks() {
        RequestHead h = Heads.request("post", "http://u:p@up.example/t?api_key=abc&page=2&sig=s", "up.example",
                List.of(Map.entry("Authorization", "Bearer sk-live"), Map.entry("x-secret", "v"),
                        Map.entry("Referer", "https://a.example/?token=t1"), Map.entry("Content-Type", "application/json"),
                        Map.entry("X-Forwarded-For", "10.0.0.1"), Map.entry("Host", "proxy")),
                redactor);
        assertThat(h.method()).isEqualTo("POST");
        assertThat(h.uri()).isEqualTo("http://***@up.example/t?api_key=***&page=2&sig=***");
        assertThat(h.headers()).containsExactly(new HeadField("Host", "up.example"), new HeadField("Authorization", "***"),
                new HeadField("x-secret", "***"), new HeadField("Referer", "https://a.example/?token=***"),
                new HeadField("Content-Type", "application/json"));
    }

    @Test
    void aResponseHeadMasksCookiesItSetsAndLongValuesAreCut() {
        String longValue = "x".repeat(2000);
        ResponseHead h = Heads.response(201, List.of(Map.entry("Set-Cookie", "sid=abc"), Map.entry("X-Long", longValue)),
                Map.Entry::getKey, Map.Entry::getValue, redactor);
        assertThat(h.status()).isEqualTo(201);
        assertThat(h.headers().get(0)).isEqualTo(new HeadField("Set-Cookie", "***"));
        assertThat(h.headers().get(1).value()).hasSize(Heads.MAX_VALUE).endsWith("\u2026");
    }
}
