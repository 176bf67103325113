package dev.idemproxy.app.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.secret.Redactor;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CallRecordsJsonTest {
    private final Redactor redactor = Redactor.of(List.of("X-Auth-Token"), List.of("sig"));

    /** What the store keeps for a replay (a kept Authorization, the full target) is never what the API shows. */
    @Test
    void aStoredRequestIsShownWithEveryCredentialAndSecretQueryValueMasked() {
        StoredRequest stored = new StoredRequest("POST", "http://u:pw@tickets.internal/api?api_key=k&sig=s&page=2", List.of(
                new StoredHeader("Authorization", "Bearer kept-for-replay"),
                new StoredHeader("X-Auth-Token", Redactor.MASK),
                new StoredHeader("cookie", "s=1"),
                new StoredHeader("Content-Type", "application/json")),
                "{}".getBytes(StandardCharsets.UTF_8));

        Map<String, Object> shown = CallRecordsJson.request(stored, redactor);

        assertThat(shown.get("uri")).isEqualTo("http://***@tickets.internal/api?api_key=***&sig=***&page=2");
        assertThat(shown.get("headers")).isEqualTo(List.of(
                Map.of("name", "Authorization", "value", "***"),
                Map.of("name", "X-Auth-Token", "value", "***"),
                Map.of("name", "cookie", "value", "***"),
                Map.of("name", "Content-Type", "value", "application/json")));
        assertThat(stored.headers().get(0).value()).as("the store's copy is untouched").isEqualTo("Bearer kept-for-replay");
    }

    @Test
    void aReplayResendsKeptCredentialsButNotTheMaskedOnesOfEitherMask() {
        List<StoredHeader> stored = List.of(
                new StoredHeader("Authorization", "Bearer kept-for-replay"),
                new StoredHeader("X-Auth-Token", Redactor.MASK),
                new StoredHeader("Cookie", "<redacted>"),
                new StoredHeader("X-Trace", "t-1"));

        assertThat(DlqReplayer.resent(stored)).extracting(StoredHeader::name).containsExactly("Authorization", "X-Trace");
    }
}
