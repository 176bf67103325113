package dev.idemproxy.app.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.FreePorts;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.TestUpstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code admin.metricsListen} on the real jar: with {@code admin.token} set, Prometheus scrapes
 * the metrics listener without the token, while the admin listener still asks for it, and the
 * metrics listener serves nothing but {@code /metrics} and the probes.
 */
@ExtendWith(LeakDetection.class)
class MetricsListenerIT {
    static final String TOKEN = "t0ken-" + Long.toHexString(System.nanoTime());
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    @Test
    void prometheusScrapesTheMetricsListenerWithoutTheTokenWhichTheAdminListenerStillRequires() throws Exception {
        int[] ports = FreePorts.pick(3);
        try (TestUpstream upstream = TestUpstream.start()) {
            Path config = Files.writeString(dir.resolve("idemproxy.yaml"), ""
                    + "listen: 127.0.0.1:" + ports[0] + "\n"
                    + "admin: { listen: 127.0.0.1:" + ports[1] + ", token: " + TOKEN + ", metricsListen: 127.0.0.1:" + ports[2] + " }\n"
                    + "store: { type: memory }\n"
                    + "routes:\n"
                    + "  - name: tickets\n"
                    + "    upstream: " + upstream.uri() + "\n", UTF_8);
            try (ChildProxy child = ProcessIT.startRun(config)) {
                child.awaitLine("metrics listening on /127.0.0.1:" + ports[2]);
                URI metrics = URI.create("http://127.0.0.1:" + ports[2]);
                URI admin = URI.create("http://127.0.0.1:" + ports[1]);

                HttpResponse<String> scrape = get(metrics.resolve("/metrics"), null);
                assertThat(scrape.statusCode()).isEqualTo(200);
                assertThat(scrape.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
                assertThat(scrape.body()).contains("idemproxy_in_flight{route=\"tickets\"} 0.0")
                        .contains("idemproxy_build_info{version=\"" + jarVersion() + "\"} 1")
                        .doesNotContain(TOKEN);
                assertThat(get(metrics.resolve("/healthz"), null).statusCode()).isEqualTo(200);
                assertThat(get(metrics.resolve("/readyz"), null).statusCode()).isEqualTo(200);
                for (String elsewhere : new String[] {"/config", "/dlq", "/receipts/x"}) {
                    assertThat(get(metrics.resolve(elsewhere), null).statusCode()).as(elsewhere).isEqualTo(404);
                    assertThat(get(metrics.resolve(elsewhere), TOKEN).statusCode()).as(elsewhere + " with the token").isEqualTo(404);
                }

                assertThat(get(admin.resolve("/metrics"), null).statusCode()).isEqualTo(401);
                assertThat(get(admin.resolve("/config"), null).statusCode()).isEqualTo(401);
                HttpResponse<String> config2 = get(admin.resolve("/config"), TOKEN);
                assertThat(config2.statusCode()).isEqualTo(200);
                assertThat(config2.body()).contains("\"metricsListen\" : \"127.0.0.1:" + ports[2] + "\"").doesNotContain(TOKEN);
                assertThat(get(admin.resolve("/metrics"), TOKEN).statusCode()).isEqualTo(200);
            }
        }
    }

    private static HttpResponse<String> get(URI uri, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(15));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The version the jar's manifest names, which the child reports. */
    private static String jarVersion() throws Exception {
        try (JarFile jar = new JarFile(ChildProxy.JAR.toFile())) {
            String v = jar.getManifest().getMainAttributes().getValue("Implementation-Version");
            assertThat(v).isNotBlank();
            return v;
        }
    }
}
