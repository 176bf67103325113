package dev.idemproxy.core.tries;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.secret.Redactor;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CallHeadsTest {
    private final Redactor redactor = Redactor.of(List.of("X-Secret"), List.of("sig"));

    private static HttpHeaders request() {
        return new DefaultHttpHeaders()
                .add("Authorization", "Bearer sk-live")
                .add("x-secret", "v")
                .add("Referer", "https://a.example/?token=t1")
                .add("Content-Type", "application/json")
                .add("X-Forwarded-For", "10.0.0.1")
                .add("Host", "proxy")
                .add("X-Note", "caf\u00e9 \u2713 \uD83D\uDE00");
    }

    @Test
    void theRequestHeadShowsCredentialsSecretQueryValuesAndUserInfoAsMasksAndLeavesOutWhatTheProxyRewrote() {
        HttpHeaders h = request();
        CallHeads heads = CallHeads.of("POST", "http://u:p@up.example/t?api_key=abc&page=2&sig=s", "up.example",
                h::iteratorCharSequence, 201, List.of(Map.entry("Set-Cookie", "sid=abc"), Map.entry("Content-Type", "text/plain")),
                Map.Entry::getKey, Map.Entry::getValue, redactor);

        RequestHead req = heads.request();
        assertThat(req.method()).isEqualTo("POST");
        assertThat(req.uri()).isEqualTo("http://***@up.example/t?api_key=***&page=2&sig=***");
        assertThat(req.headers()).containsExactly(new HeadField("Host", "up.example"), new HeadField("Authorization", "***"),
                new HeadField("x-secret", "***"), new HeadField("Referer", "https://a.example/?token=***"),
                new HeadField("Content-Type", "application/json"), new HeadField("X-Note", "caf\u00e9 \u2713 \uD83D\uDE00"));
        ResponseHead resp = heads.response();
        assertThat(resp.status()).isEqualTo(201);
        assertThat(resp.headers()).containsExactly(new HeadField("Set-Cookie", "***"), new HeadField("Content-Type", "text/plain"));
        assertThat(heads.toString()).doesNotContain("sk-live", "sid=abc", "t1", "abc&");
    }

    @Test
    void longValuesAreCutAndAHeadWithoutAnAnswerHasNoResponse() {
        HttpHeaders h = new DefaultHttpHeaders().add("X-Long", "x".repeat(2000));
        CallHeads heads = CallHeads.of("get", "/a", null, h::iteratorCharSequence, 0, null, (Map.Entry<String, String> e) -> e.getKey(),
                Map.Entry::getValue, redactor);
        assertThat(heads.request().headers().get(0).value()).hasSize(CallHeads.MAX_VALUE).endsWith("\u2026");
        assertThat(heads.response()).isNull();
    }

    @Test
    void headsAlreadyShownEncodeToTheSameFormAndReadBack() {
        RequestHead req = new RequestHead("POST", "/t", List.of(new HeadField("A", "1")));
        ResponseHead resp = new ResponseHead(200, List.of());
        CallHeads heads = CallHeads.of(req, resp);
        assertThat(heads.request()).isEqualTo(req);
        assertThat(heads.response()).isEqualTo(resp);
        assertThat(CallHeads.fromBytes(heads.bytes())).isEqualTo(heads);
    }
}
