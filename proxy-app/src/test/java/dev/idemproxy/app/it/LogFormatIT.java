package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.core.testing.FreePorts;
import dev.idemproxy.core.testing.TestUpstream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --log-format json}: every line is a JSON object; the call line carries the §9 fields; secrets never printed. */
class LogFormatIT {
    @TempDir
    Path dir;

    @Test
    void jsonLogLinesCarryTheCallFieldsAndNoSecrets() throws Exception {
        String secret = "sk-live-" + UUID.randomUUID();
        int[] ports = FreePorts.pick(2);
        try (TestUpstream upstream = TestUpstream.start()) {
            upstream.enqueue(respond(201, "created"));
            Path config = dir.resolve("idemproxy.yaml");
            Files.writeString(config, "listen: 127.0.0.1:" + ports[0] + "\nadmin: { listen: 127.0.0.1:" + ports[1] + " }\n"
                    + "store: { type: memory }\nroutes:\n  - name: orders\n    upstream: " + upstream.uri() + "\n"
                    + "    idempotency: { enabled: true }\n    ids: { bizId: [body:/orderId] }\n");
            try (ChildProxy child = ChildProxy.start(dir, "run", "--config", config.toString(), "--log-format", "json")) {
                child.awaitLine("listening on");
                HttpClient client = HttpClient.newHttpClient();
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + ports[0] + "/orders")).header("Idempotency-Key", "k-1")
                        .header("Authorization", "Bearer " + secret).header("Cookie", "session=" + secret)
                        .POST(HttpRequest.BodyPublishers.ofString("{\"orderId\":\"o-9\"}")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(201);
                String line = child.awaitLine(l -> l.contains("idemproxy.calls"), Duration.ofSeconds(10));
                JsonNode json = new ObjectMapper().readTree(line);
                Map<String, String> kv = new HashMap<>();
                json.get("kvpList").forEach(pair -> pair.fields().forEachRemaining(e -> kv.put(e.getKey(), e.getValue().asText())));
                assertThat(kv).containsEntry("route", "orders").containsEntry("key", "k-1").containsEntry("biz", "o-9")
                        .containsEntry("status", "201").containsEntry("outcome", "executed").containsEntry("try", "1")
                        .containsKeys("call", "ms");
                assertThat(json.get("formattedMessage").asText()).startsWith("[call=" + kv.get("call") + "][biz=o-9][try=1] route=orders");
                child.signal("TERM");
                assertThat(child.waitFor(Duration.ofSeconds(20))).isEqualTo(0);
                for (ChildProxy.Line l : child.lines()) {
                    assertThat(l.text()).doesNotContain(secret);
                    if (l.text().startsWith("{")) {
                        new ObjectMapper().readTree(l.text());
                    }
                }
                assertThat(child.stdout()).allSatisfy(l -> assertThat(l).startsWith("{"));
            }
        }
    }
}
