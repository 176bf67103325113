package dev.idemproxy.app.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.app.cli.IdemproxyCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * A config with a secret planted in every key the schema marks secret (the admin token, the
 * Redis URI's password, an upstream's user-info, a receipt URL's user-info and {@code api_key}):
 * a running proxy's {@code GET /config} and {@code idemproxy validate} on the same file show none
 * of them, and still show the values around them. (SchemaRedactionTest holds the planted keys to
 * the schema's secret markings.)
 */
class ConfigSecretsIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    private static final List<String> SECRETS = List.of("tok-" + RUN, "redispw-" + RUN, "upw-" + RUN, "rpw-" + RUN, "rkey-" + RUN);

    @Test
    void neitherConfigNorValidateShowsAPlantedSecret() throws Exception {
        try (RunningProxy proxy = RunningProxy.startWithAdminToken("\"tok-" + RUN + "\"",
                "store: { type: memory, redis: { uri: \"redis://app:redispw-" + RUN + "@cache.internal:6379/0\" } }\n",
                "routes:\n"
                        + "  - name: tickets\n"
                        + "    upstream: \"http://bot:upw-" + RUN + "@127.0.0.1:1/base\"\n"
                        + "    idempotency: { enabled: true }\n"
                        + "    receipt: { url: \"http://r:rpw-" + RUN + "@127.0.0.1:1/receipts/{callId}?api_key=rkey-" + RUN
                        + "&v=2\" }\n")) {
            HttpResponse<String> config = HttpClient.newHttpClient().send(HttpRequest.newBuilder(proxy.admin("/config"))
                    .header("Authorization", "Bearer tok-" + RUN).build(), HttpResponse.BodyHandlers.ofString());
            String validate = validate(proxy.configFile.toString());

            assertThat(config.statusCode()).isEqualTo(200);
            for (String secret : SECRETS) {
                assertThat(config.body()).as("GET /config").doesNotContain(secret);
                assertThat(validate).as("idemproxy validate").doesNotContain(secret);
            }
            JsonNode tree = JSON.readTree(config.body());
            JsonNode route = tree.get("routes").get(0);
            assertThat(tree.at("/admin/token").asText()).isEqualTo("***");
            assertThat(tree.at("/store/redis/uri").asText()).isEqualTo("redis://***@cache.internal:6379/0");
            assertThat(route.get("upstream").asText()).isEqualTo("http://***@127.0.0.1:1/base");
            assertThat(route.at("/receipt/url").asText()).isEqualTo("http://***@127.0.0.1:1/receipts/{callId}?api_key=***&v=2");
            assertThat(route.get("name").asText()).isEqualTo("tickets");
            assertThat(validate).contains(": OK", "tickets", "http://***@127.0.0.1:1/base",
                    "route tickets: key from header Idempotency-Key");
        }
    }

    private static String validate(String file) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = IdemproxyCommand.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute("validate", "--config", file)).as("exit code; stderr: %s", err).isZero();
        return out + err.toString();
    }
}
