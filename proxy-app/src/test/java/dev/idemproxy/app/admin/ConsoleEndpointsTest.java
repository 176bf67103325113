package dev.idemproxy.app.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.AdminPolicy;
import dev.idemproxy.core.HostPort;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ConsoleEndpointsTest {
    private final HttpClient client = HttpClient.newHttpClient();
    private MetricsSetup metrics;
    private AdminServer server;

    @BeforeEach
    void setUp() {
        metrics = new MetricsSetup();
        server = new AdminServer(new AdminPolicy(new HostPort("127.0.0.1", 0), "tok"), metrics.registry(), () -> true, Map::of,
                ConsoleEndpoints.routes(new MinuteSamples(metrics.registry(), Clock.systemUTC()))).start();
    }

    @AfterEach
    void tearDown() {
        server.close();
        metrics.close();
    }

    private HttpResponse<String> get(String path, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theConsolesAssetsAreServedWithoutTheTokenUnderAStrictContentSecurityPolicy() throws Exception {
        for (String path : ConsoleEndpoints.ASSETS.keySet()) {
            HttpResponse<String> r = get(path, null);
            assertThat(r.statusCode()).as(path).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Security-Policy")).as(path).contains(ConsoleEndpoints.CSP);
            assertThat(r.headers().firstValue("X-Content-Type-Options")).contains("nosniff");
            assertThat(r.body()).isNotBlank();
        }
        HttpResponse<String> page = get("/ui", null);
        assertThat(page.headers().firstValue("Content-Type")).contains("text/html; charset=utf-8");
        assertThat(page.body()).contains("<script type=\"module\" src=\"/ui/app.js\"></script>").doesNotContain("http://", "https://");
        assertThat(get("/ui/app.js", null).headers().firstValue("Content-Type")).contains("text/javascript; charset=utf-8");
    }

    @Test
    void itsDataNeedsTheTokenAndAnythingElseUnderUiIsNotDisclosed() throws Exception {
        assertThat(get("/stats/minutes", null).statusCode()).isEqualTo(401);
        assertThat(get("/stats/minutes", "wrong").statusCode()).isEqualTo(401);
        HttpResponse<String> ok = get("/stats/minutes", "tok");
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.body()).contains("\"minutes\"");
        assertThat(get("/ui/secrets.js", null).statusCode()).isEqualTo(401);
        assertThat(get("/ui/secrets.js", "tok").statusCode()).isEqualTo(404);
    }
}
