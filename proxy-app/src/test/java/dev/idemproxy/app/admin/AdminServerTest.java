package dev.idemproxy.app.admin;

import dev.idemproxy.core.testing.RawHttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.core.AdminPolicy;
import dev.idemproxy.core.HostPort;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AdminServerTest {
    private static final String TOKEN = "s3cret-token";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final AtomicBoolean ready = new AtomicBoolean(true);
    private final Map<String, Object> config = Map.of("listen", "127.0.0.1:8080",
            "admin", Map.of("listen", "127.0.0.1:9901", "token", "***"), "routes", List.of());
    private MetricsSetup metrics;
    private AdminServer server;

    @BeforeEach
    void setUp() {
        metrics = new MetricsSetup();
    }

    @AfterEach
    void tearDown() {
        if (server != null) {
            server.close();
        }
        metrics.close();
    }

    private AdminServer start(String token, AdminRoutes extra) {
        server = new AdminServer(new AdminPolicy(new HostPort("127.0.0.1", 0), token), metrics.registry(),
                ready::get, () -> config, extra).start();
        return server;
    }

    private HttpResponse<String> send(String method, String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (headers.length > 0) {
            b.headers(headers);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void healthzIsUp() throws Exception {
        start("", AdminRoutes.empty());

        HttpResponse<String> r = send("GET", "/healthz");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(JSON.readTree(r.body()).get("status").asText()).isEqualTo("UP");
    }

    @Test
    void readyzFollowsTheReadinessSupplier() throws Exception {
        start("", AdminRoutes.empty());

        HttpResponse<String> up = send("GET", "/readyz");
        ready.set(false);
        HttpResponse<String> down = send("GET", "/readyz");

        assertThat(up.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(up.body()).get("status").asText()).isEqualTo("READY");
        assertThat(down.statusCode()).isEqualTo(503);
        assertThat(JSON.readTree(down.body()).get("status").asText()).isEqualTo("NOT_READY");
    }

    @Test
    void metricsRenderJvmNettyAndReloadFailureFamilies() throws Exception {
        start("", AdminRoutes.empty());

        HttpResponse<String> r = send("GET", "/metrics");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        assertThat(r.body())
                .contains("jvm_memory_used_bytes")
                .contains("jvm_threads_live_threads")
                .contains("netty_allocator_memory_used")
                .contains("idemproxy_config_reload_failures_total 0.0");
    }

    @Test
    void metricsCountReloadFailures() throws Exception {
        start("", AdminRoutes.empty());
        metrics.configReloadFailures().increment();

        assertThat(send("GET", "/metrics").body()).contains("idemproxy_config_reload_failures_total 1.0");
    }

    @Test
    void metricsSpeakOpenMetricsWhenAsked() throws Exception {
        start("", AdminRoutes.empty());

        HttpResponse<String> r = send("GET", "/metrics", "Accept", "application/openmetrics-text; version=1.0.0");

        assertThat(r.headers().firstValue("content-type").orElseThrow()).startsWith("application/openmetrics-text");
        assertThat(r.body()).contains("idemproxy_config_reload_failures_total 0.0").endsWith("# EOF\n");
    }

    @Test
    void configReturnsTheSuppliedTree() throws Exception {
        start("", AdminRoutes.empty());

        HttpResponse<String> r = send("GET", "/config");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(r.body())).isEqualTo(JSON.valueToTree(config));
    }

    @Test
    void tokenGuardsEverythingButTheProbes() throws Exception {
        start(TOKEN, AdminRoutes.empty());

        for (String path : List.of("/metrics", "/config", "/no-such-path")) {
            HttpResponse<String> none = send("GET", path);
            assertThat(none.statusCode()).as(path).isEqualTo(401);
            assertThat(none.headers().firstValue("www-authenticate").orElseThrow()).startsWith("Bearer");
            assertThat(none.headers().firstValue("content-type")).hasValue("application/problem+json");
            assertThat(send("GET", path, "Authorization", "Bearer wrong").statusCode()).as(path).isEqualTo(401);
            assertThat(send("GET", path, "Authorization", "Basic " + TOKEN).statusCode()).as(path).isEqualTo(401);
        }
        assertThat(send("GET", "/metrics", "Authorization", "Bearer " + TOKEN).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/config", "Authorization", "bearer " + TOKEN).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/healthz").statusCode()).isEqualTo(200);
        assertThat(send("GET", "/readyz").statusCode()).isEqualTo(200);
    }

    @Test
    void nonLoopbackListenWithoutTokenIsRefusedAtStart() {
        AdminServer s = new AdminServer(new AdminPolicy(new HostPort("0.0.0.0", 0), ""), metrics.registry(),
                ready::get, () -> config, AdminRoutes.empty());

        assertThatThrownBy(s::start)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("admin.listen 0.0.0.0:0 is not a loopback address");
        s.close();
    }

    @Test
    void nonLoopbackListenWithTokenStarts() throws Exception {
        server = new AdminServer(new AdminPolicy(new HostPort("0.0.0.0", 0), TOKEN), metrics.registry(),
                ready::get, () -> config, AdminRoutes.empty()).start();

        assertThat(send("GET", "/healthz").statusCode()).isEqualTo(200);
    }

    @Test
    void unknownPathIsA404Problem() throws Exception {
        start("", AdminRoutes.empty());

        HttpResponse<String> r = send("GET", "/nope");

        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(r.headers().firstValue("content-type")).hasValue("application/problem+json");
        JsonNode p = JSON.readTree(r.body());
        assertThat(p.get("type").asText()).isEqualTo("urn:idemproxy:problem:not-found");
        assertThat(p.get("status").asInt()).isEqualTo(404);
        assertThat(p.get("title").asText()).isNotBlank();
        assertThat(p.get("detail").asText()).contains("/nope");
    }

    @Test
    void wrongMethodIsA405ProblemWithAllow() throws Exception {
        start("", AdminRoutes.empty());

        HttpResponse<String> r = send("POST", "/healthz");

        assertThat(r.statusCode()).isEqualTo(405);
        assertThat(r.headers().firstValue("allow")).hasValue("GET");
        assertThat(JSON.readTree(r.body()).get("type").asText()).isEqualTo("urn:idemproxy:problem:method-not-allowed");
    }

    @Test
    void extraRouteAnswersAsynchronouslyFromAnotherThread() throws Exception {
        AtomicReference<String> thread = new AtomicReference<>();
        AdminRoutes extra = AdminRoutes.builder()
                .get("/receipts/{callId}", req -> {
                    CompletableFuture<AdminResponse> f = new CompletableFuture<>();
                    Thread t = new Thread(() -> {
                        thread.set(Thread.currentThread().getName());
                        f.complete(AdminResponse.json(200, Map.of("callId", req.pathParam("callId"),
                                "bizId", req.queryParam("bizId").orElse(""))));
                    }, "fake-store");
                    t.start();
                    return f;
                })
                .build();
        start(TOKEN, extra);

        HttpResponse<String> r = send("GET", "/receipts/c%201?bizId=B-7", "Authorization", "Bearer " + TOKEN);

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.get("callId").asText()).isEqualTo("c 1");
        assertThat(body.get("bizId").asText()).isEqualTo("B-7");
        assertThat(thread.get()).isEqualTo("fake-store");
        assertThat(send("DELETE", "/receipts/c1", "Authorization", "Bearer " + TOKEN).statusCode()).isEqualTo(405);
    }

    @Test
    void failingExtraRouteIsA500Problem() throws Exception {
        AdminRoutes extra = AdminRoutes.builder()
                .get("/dlq", req -> CompletableFuture.failedFuture(new IllegalStateException("store down")))
                .get("/dlq/{id}", req -> {
                    throw new IllegalStateException("bug");
                })
                .build();
        start("", extra);

        for (String path : List.of("/dlq", "/dlq/1")) {
            HttpResponse<String> r = send("GET", path);
            assertThat(r.statusCode()).as(path).isEqualTo(500);
            assertThat(JSON.readTree(r.body()).get("type").asText()).isEqualTo("urn:idemproxy:problem:internal-error");
        }
        assertThat(send("GET", "/healthz").statusCode()).isEqualTo(200);
    }

    @Test
    void extraRouteClashingWithBuiltInIsRejected() {
        AdminRoutes extra = AdminRoutes.builder().get("/metrics", req -> AdminResponse.json(200, Map.of()).completed()).build();

        assertThatThrownBy(() -> new AdminServer(AdminPolicy.DEFAULT, metrics.registry(), ready::get, () -> config, extra))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("GET /metrics is already registered");
    }

    @Test
    void pipelinedResponsesKeepRequestOrderWhenHandlersFinishOutOfOrder() throws Exception {
        CompletableFuture<AdminResponse> slow = new CompletableFuture<>();
        CountDownLatch fastCalled = new CountDownLatch(1);
        AdminRoutes extra = AdminRoutes.builder()
                .get("/slow", req -> slow)
                .get("/fast", req -> {
                    fastCalled.countDown();
                    return AdminResponse.json(200, Map.of("status", "FAST")).completed();
                })
                .build();
        start("", extra);

        try (RawHttp raw = RawHttp.connect("127.0.0.1", server.port())) {
            raw.write("GET /slow HTTP/1.1\r\nHost: a\r\n\r\nGET /fast HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
            assertThat(fastCalled.await(10, TimeUnit.SECONDS)).isTrue();
            slow.complete(AdminResponse.json(200, Map.of("status", "SLOW")));

            String all = new String(raw.readUntilClose(), java.nio.charset.StandardCharsets.ISO_8859_1);
            assertThat(all.indexOf("SLOW")).isPositive().isLessThan(all.indexOf("FAST"));
        }
    }

    @Test
    void closeIsIdempotentAndStopsListening() {
        start("", AdminRoutes.empty());
        int port = server.port();

        server.close();
        server.close();

        assertThatThrownBy(() -> new java.net.Socket("127.0.0.1", port).close()).isInstanceOf(java.io.IOException.class);
    }

    @Test
    void theMetricsListenerServesTheScrapeAndProbesWithoutTheTokenAndNothingElse() throws Exception {
        server = new AdminServer(new AdminPolicy(new HostPort("127.0.0.1", 0), TOKEN, new HostPort("127.0.0.1", 0)),
                metrics.registry(), ready::get, () -> config, AdminRoutes.builder().get("/dlq", r -> {
                    throw new AssertionError("not on the metrics listener");
                }).build()).start();
        int metricsPort = server.metricsAddress().orElseThrow().getPort();
        assertThat(metricsPort).isNotEqualTo(server.port());

        assertThat(sendTo(metricsPort, "/metrics").statusCode()).isEqualTo(200);
        assertThat(sendTo(metricsPort, "/metrics").body()).contains("idemproxy_config_reload_failures_total");
        assertThat(sendTo(metricsPort, "/healthz").statusCode()).isEqualTo(200);
        assertThat(sendTo(metricsPort, "/readyz").statusCode()).isEqualTo(200);
        assertThat(sendTo(metricsPort, "/config").statusCode()).isEqualTo(404);
        assertThat(sendTo(metricsPort, "/dlq").statusCode()).isEqualTo(404);
        assertThat(send("GET", "/metrics").statusCode()).isEqualTo(401);
        assertThat(send("GET", "/config").statusCode()).isEqualTo(401);
    }

    @Test
    void withoutAMetricsListenerThereIsNoMetricsAddress() {
        start("", AdminRoutes.empty());

        assertThat(server.metricsAddress()).isEmpty();
    }

    @Test
    void aMetricsListenerThatCannotBindFailsTheStartAndFreesTheAdminPort() throws Exception {
        int adminPort = dev.idemproxy.core.testing.FreePorts.pick();
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            AdminServer s = new AdminServer(new AdminPolicy(new HostPort("127.0.0.1", adminPort), TOKEN,
                    new HostPort("127.0.0.1", taken.getLocalPort())), metrics.registry(), ready::get, () -> config,
                    AdminRoutes.empty());

            assertThatThrownBy(s::start).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("admin.metricsListen 127.0.0.1:" + taken.getLocalPort() + ": cannot listen");
            s.close();
        }
        try (java.net.ServerSocket again = new java.net.ServerSocket(adminPort, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertThat(again.getLocalPort()).isEqualTo(adminPort);
        }
    }

    private HttpResponse<String> sendTo(int port, String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString());
    }
}
