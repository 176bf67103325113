package dev.idemproxy.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ProxyServerSmokeTest {
    HttpServer upstream;
    ProxyServer proxy;
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void start() throws Exception {
        upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        upstream.createContext("/", ex -> {
            byte[] in = ex.getRequestBody().readAllBytes();
            String body = ex.getRequestMethod() + " " + ex.getRequestURI() + " host=" + ex.getRequestHeaders().getFirst("Host")
                    + " xff=" + ex.getRequestHeaders().getFirst("X-Forwarded-For") + " len=" + in.length;
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        upstream.start();
        URI up = URI.create("http://127.0.0.1:" + upstream.getAddress().getPort());
        Route r = Route.passThrough("echo", new RouteMatch(null, "/api", Set.of()), up);
        ProxyConfig cfg = ProxyConfig.empty().withListen(new HostPort("127.0.0.1", 0), AdminPolicy.DEFAULT).withRoutes(List.of(r));
        proxy = new ProxyServer(cfg);
        proxy.start();
    }

    @AfterEach
    void stop() throws Exception {
        proxy.stop(Duration.ofSeconds(1));
        upstream.stop(0);
    }

    URI proxyUri(String path) {
        return URI.create("http://127.0.0.1:" + proxy.address().getPort() + path);
    }

    @Test
    void forwardsGetAndPost() throws Exception {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(proxyUri("/api/x?q=1")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).startsWith("GET /api/x?q=1 host=127.0.0.1:").contains("xff=127.0.0.1").endsWith("len=0");
        HttpResponse<String> p = client.send(HttpRequest.newBuilder(proxyUri("/api/y"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"a\":1}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(p.body()).startsWith("POST /api/y").endsWith("len=7");
    }

    /** An upstream answering with a header name that is not a token: the response is not passed on. */
    @Test
    void anUpstreamResponseWithABadHeaderNameIsA502() throws Exception {
        try (java.net.ServerSocket raw = new java.net.ServerSocket(0, 8, java.net.InetAddress.getLoopbackAddress())) {
            Thread answerer = new Thread(() -> {
                for (String name : List.of("X-Bad@Name", "X-Good~Name")) {
                    try (Socket s = raw.accept()) {
                        InputStream in = s.getInputStream();
                        int state = 0;
                        while (state < 4) {  // read up to the blank line ending the request head
                            int b = in.read();
                            state = b < 0 ? 4 : (b == (state % 2 == 0 ? '\r' : '\n') ? state + 1 : 0);
                        }
                        OutputStream out = s.getOutputStream();
                        out.write(("HTTP/1.1 200 OK\r\n" + name + ": v\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
                                .getBytes(StandardCharsets.ISO_8859_1));
                        out.flush();
                        s.shutdownOutput();
                        in.readAllBytes();
                    } catch (Exception e) {
                        return;
                    }
                }
            });
            answerer.setDaemon(true);
            answerer.start();
            proxy.stop(Duration.ofSeconds(1));
            Route r = Route.passThrough("raw", new RouteMatch(null, "/raw", Set.of()), URI.create("http://127.0.0.1:" + raw.getLocalPort()));
            proxy = new ProxyServer(ProxyConfig.empty().withListen(new HostPort("127.0.0.1", 0), AdminPolicy.DEFAULT).withRoutes(List.of(r)));
            proxy.start();

            HttpResponse<String> bad = client.send(HttpRequest.newBuilder(proxyUri("/raw/a")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(bad.statusCode()).isEqualTo(502);
            assertThat(bad.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(bad.body()).contains("urn:idemproxy:problem:upstream-reset")
                    .contains("the upstream's response could not be parsed as HTTP/1.1").doesNotContain("Exception");
            assertThat(bad.headers().map().keySet()).noneMatch(k -> k.toLowerCase(java.util.Locale.ROOT).startsWith("x-bad"));
            HttpResponse<String> good = client.send(HttpRequest.newBuilder(proxyUri("/raw/b")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(good.statusCode()).isEqualTo(200);
            assertThat(good.headers().firstValue("X-Good~Name")).hasValue("v");
            assertThat(good.body()).isEqualTo("ok");
            answerer.join(5_000);
        }
    }

    @Test
    void listeningOnABusyPortIsABindExceptionWithTheOsReason() {
        ProxyConfig busy = ProxyConfig.empty().withListen(
                new HostPort("127.0.0.1", proxy.address().getPort()), AdminPolicy.DEFAULT);
        ProxyServer second = new ProxyServer(busy);

        assertThatThrownBy(second::start).isInstanceOf(BindException.class)
                .hasMessageContaining("in use").hasMessageNotContaining("bind(..)");
    }

    @Test
    void noRouteIs404Problem() throws Exception {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(proxyUri("/other")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(r.headers().firstValue("content-type")).hasValue("application/problem+json");
        assertThat(r.body()).contains("urn:idemproxy:problem:no-route");
    }

    @Test
    void contentLengthWithTransferEncodingIsRefused() throws Exception {
        try (Socket s = new Socket("127.0.0.1", proxy.address().getPort())) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(("POST /api/z HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String resp = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(resp).startsWith("HTTP/1.1 400").contains("bad-request");
        }
    }
}
