package dev.idemproxy.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.app.config.SchemaKey.Secret;
import dev.idemproxy.core.ProxyConfig;
import dev.idemproxy.core.secret.Redactor;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** {@link SchemaRedaction}: what {@code /config} and {@code validate} show of the keys {@link ConfigSchema} marks secret. */
class SchemaRedactionTest {
    /** A value with a planted secret for every secret-marked key, by schema path; the secrets all start with {@code pl4nt}. */
    private static final Map<String, String> PLANTED = Map.of(
            "admin.token", "pl4nt-token",
            "store.redis.uri", "redis://user:pl4nt-redis@cache:6379/0",
            "routes[].upstream", "http://bot:pl4nt-upstream@127.0.0.1:1/base",
            "routes[].receipt.url", "http://r:pl4nt-receipt-pw@127.0.0.1:1/receipts/{callId}?api_key=pl4nt-receipt-key&v=2",
            "telemetry.traces.endpoint", "https://otel:pl4nt-otlp-pw@collector:4318/v1/traces?token=pl4nt-otlp-token",
            "telemetry.traces.headers", "{ Authorization: \"Bearer pl4nt-otlp-header\", X-Tenant: pl4nt-tenant }");
    private static final String CONFIG = "admin: { token: \"pl4nt-token\" }\n"
            + "telemetry: { traces: { endpoint: \"https://otel:pl4nt-otlp-pw@collector:4318/v1/traces?token=pl4nt-otlp-token\",\n"
            + "    headers: { Authorization: \"Bearer pl4nt-otlp-header\", X-Tenant: pl4nt-tenant } } }\n"
            + "store: { type: memory, redis: { uri: \"redis://user:pl4nt-redis@cache:6379/0\", keyPrefix: \"shown:\" } }\n"
            + "routes:\n"
            + "  - name: tickets\n"
            + "    upstream: \"http://bot:pl4nt-upstream@127.0.0.1:1/base\"\n"
            + "    idempotency: { enabled: true }\n"
            + "    receipt: { url: \"http://r:pl4nt-receipt-pw@127.0.0.1:1/receipts/{callId}?api_key=pl4nt-receipt-key&v=2\" }\n"
            + "  - { name: plain, upstream: \"http://127.0.0.1:2\" }\n";

    @Test
    void theConfigPlantsASecretInEverySecretMarkedKey() {
        Set<String> marked = ConfigSchema.keys().entrySet().stream().filter(e -> e.getValue().secret() != Secret.NONE)
                .map(Map.Entry::getKey).collect(Collectors.toSet());

        assertThat(PLANTED.keySet()).as("a planted value per secret-marked key").isEqualTo(marked);
        PLANTED.values().forEach(v -> assertThat(CONFIG).contains(v));
    }

    @Test
    void noPlantedSecretIsShownWhileTheRestIs() throws Exception {
        ProxyConfig config = new YamlConfigLoader(name -> null).parse(CONFIG, "t.yaml", Path.of(""));

        Map<String, Object> tree = ConfigDescriber.effectiveConfig(config, List.of("listen"));
        String shown = new ObjectMapper().writeValueAsString(tree) + "\n" + ConfigDescriber.routeTable(config) + "\n"
                + String.join("\n", ConfigDescriber.keySources(config));

        assertThat(shown).doesNotContain("pl4nt");
        assertThat(shown).contains("\"token\":\"***\"", "\"uri\":\"redis://***@cache:6379/0\"", "\"keyPrefix\":\"shown:\"",
                "\"upstream\":\"http://***@127.0.0.1:1/base\"",
                "\"url\":\"http://***@127.0.0.1:1/receipts/{callId}?api_key=***&v=2\"",
                "\"upstream\":\"http://127.0.0.1:2\"", "\"pendingRestart\":[\"listen\"]",
                "http://***@127.0.0.1:1/base  POST,PUT,PATCH,DELETE", "route tickets: key from header Idempotency-Key",
                "\"endpoint\":\"https://***@collector:4318/v1/traces?token=***\"",
                "\"headers\":{\"Authorization\":\"***\",\"X-Tenant\":\"***\"}");
    }

    @Test
    void secretMarkedValuesAreRedactedInSectionsAndInEveryListItem() {
        SchemaKey schema = SchemaKey.section("",
                SchemaKey.secret("token", SchemaKey.Type.STRING, "none", Secret.VALUE),
                SchemaKey.section("store", SchemaKey.secret("uri", SchemaKey.Type.URI, "none", Secret.URL),
                        SchemaKey.leaf("name", SchemaKey.Type.STRING, "none")),
                SchemaKey.listOf("routes", SchemaKey.section("routes",
                        SchemaKey.secret("upstream", SchemaKey.Type.URI, "none", Secret.URL),
                        SchemaKey.leaf("scope", SchemaKey.Type.REQUEST_PARTS, "none"))));
        Map<String, Object> tree = tree("token", "t0k", "store", tree("uri", "redis://u:p@h:1?password=x", "name", "u:p@h"),
                "routes", List.of(tree("upstream", "http://u:p@a", "scope", tree("credentialHeaders", List.of("http://u:p@b"))),
                        tree("upstream", "https://v:q@c/p?token=y&page=2")));

        Map<String, Object> shown = SchemaRedaction.redact(tree, schema, Redactor.BUILT_IN);

        assertThat(shown).isEqualTo(tree("token", "***", "store", tree("uri", "redis://***@h:1?password=***", "name", "u:p@h"),
                "routes", List.of(tree("upstream", "http://***@a", "scope", tree("credentialHeaders", List.of("http://u:p@b"))),
                        tree("upstream", "https://***@c/p?token=***&page=2"))));
        assertThat(tree.get("token")).as("the described tree is left as it was").isEqualTo("t0k");
    }

    @Test
    void anUnsetSecretStaysUnsetAndNullsStayNull() {
        SchemaKey schema = SchemaKey.section("", SchemaKey.secret("token", SchemaKey.Type.STRING, "none", Secret.VALUE),
                SchemaKey.secret("url", SchemaKey.Type.URI, "none", Secret.URL),
                SchemaKey.section("receipt", SchemaKey.secret("url", SchemaKey.Type.URI, "none", Secret.URL)));
        Map<String, Object> tree = tree("token", "", "url", null, "receipt", null);

        assertThat(SchemaRedaction.redact(tree, schema, Redactor.BUILT_IN)).isEqualTo(tree);
    }

    @Test
    void aKeyTheSchemaDoesNotKnowIsADescriberBug() {
        SchemaKey schema = SchemaKey.section("", SchemaKey.leaf("listen", SchemaKey.Type.HOST_PORT, "none"));

        assertThatThrownBy(() -> SchemaRedaction.redact(tree("listen", "h:1", "lisen", "x"), schema, Redactor.BUILT_IN))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("'lisen'");
    }

    /** An insertion-ordered map from alternating keys and values; values may be null. */
    private static Map<String, Object> tree(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }
}
