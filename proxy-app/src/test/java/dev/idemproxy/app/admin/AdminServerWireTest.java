package dev.idemproxy.app.admin;

import dev.idemproxy.core.testing.RawHttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.AdminPolicy;
import dev.idemproxy.core.HostPort;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The admin listener on the wire: malformed input, limits and keep-alive, over a plain socket. */
class AdminServerWireTest {
    private MetricsSetup metrics;
    private AdminServer server;

    @BeforeEach
    void setUp() {
        metrics = new MetricsSetup();
        AdminRoutes extra = AdminRoutes.builder()
                .post("/echo", req -> AdminResponse.of(200, "text/plain", req.body()).completed())
                .build();
        server = new AdminServer(new AdminPolicy(new HostPort("127.0.0.1", 0), ""), metrics.registry(),
                () -> true, Map::of, extra).start();
    }

    @AfterEach
    void tearDown() {
        server.close();
        metrics.close();
    }

    @Test
    void garbageIsA400AndTheConnectionIsClosed() throws Exception {
        try (RawHttp raw = RawHttp.connect("127.0.0.1", server.port())) {
            raw.write("\u0001\u0002 this is not http \u0003\r\n\r\n");

            String response = new String(raw.readUntilClose(), java.nio.charset.StandardCharsets.ISO_8859_1);

            assertThat(response).startsWith("HTTP/1.1 400 ")
                    .contains("application/problem+json")
                    .contains("urn:idemproxy:problem:bad-request");
        }
    }

    @Test
    void bodyOverTheLimitIsA413AndTheConnectionIsClosed() throws Exception {
        try (RawHttp raw = RawHttp.connect("127.0.0.1", server.port())) {
            raw.write("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: " + (AdminChannelInitializer.MAX_BODY_BYTES + 1)
                    + "\r\n\r\n");

            String response = new String(raw.readUntilClose(), java.nio.charset.StandardCharsets.ISO_8859_1);

            assertThat(response).startsWith("HTTP/1.1 413 ").contains("urn:idemproxy:problem:request-too-large");
        }
    }

    @Test
    void oversizedHeaderIsA431() throws Exception {
        try (RawHttp raw = RawHttp.connect("127.0.0.1", server.port())) {
            raw.write("GET /healthz HTTP/1.1\r\nHost: a\r\nX-Big: " + "x".repeat(20_000) + "\r\n\r\n");

            assertThat(new String(raw.readUntilClose(), java.nio.charset.StandardCharsets.ISO_8859_1)).startsWith("HTTP/1.1 431 ");
        }
    }

    @Test
    void keepAliveServesSeveralRequestsOnOneConnection() throws Exception {
        try (RawHttp raw = RawHttp.connect("127.0.0.1", server.port())) {
            raw.write("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n");
            RawHttp.Response first = raw.readResponse();
            raw.write("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello");
            RawHttp.Response second = raw.readResponse();
            raw.write("GET /readyz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
            String third = new String(raw.readUntilClose(), java.nio.charset.StandardCharsets.ISO_8859_1);

            assertThat(first.status()).isEqualTo(200);
            assertThat(first.header("Connection")).isNotEqualToIgnoringCase("close");
            assertThat(first.bodyAsString()).contains("\"UP\"");
            assertThat(second.status()).isEqualTo(200);
            assertThat(second.bodyAsString()).isEqualTo("hello");
            assertThat(third).startsWith("HTTP/1.1 200 ").containsIgnoringCase("connection: close").contains("\"READY\"");
        }
    }

    @Test
    void malformedRequestTargetIsA400() throws Exception {
        try (RawHttp raw = RawHttp.connect("127.0.0.1", server.port())) {
            raw.write("GET /bad%zzescape HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");

            assertThat(new String(raw.readUntilClose(), java.nio.charset.StandardCharsets.ISO_8859_1)).startsWith("HTTP/1.1 400 ").contains("urn:idemproxy:problem:bad-request");
        }
    }
}
