package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.FreePorts;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RawHttp;
import dev.idemproxy.core.testing.RecordedRequest;
import dev.idemproxy.core.testing.TestCertificates;
import dev.idemproxy.core.testing.TestUpstream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Blind tunnels ({@code forwardProxy.connect: tunnel}) and HTTP_PROXY absolute-form routing
 * (CONTRACT §3, §11), against a real echo server, a real TLS upstream and raw sockets.
 */
@ExtendWith(LeakDetection.class)
class ConnectTunnelIT {
    static TestCertificates certs;
    static TestUpstream tlsUpstream;
    static TestUpstream plainUpstream;
    static ServerSocket echo;
    static RunningProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        certs = TestCertificates.create();
        tlsUpstream = TestUpstream.start(certs.serverSslContext());
        tlsUpstream.defaultAction(respond(200, "the upstream's own TLS"));
        plainUpstream = TestUpstream.start();
        plainUpstream.defaultAction(respond(200, "plain"));
        echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(ConnectTunnelIT::acceptEchoes, "echo-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
        proxy = RunningProxy.start(""
                + "forwardProxy:\n"
                + "  connect: tunnel\n"
                + "  tunnelIdleTimeout: 2s\n"
                + "  ca: { cert: " + certs.caPemFile().getParent().resolve("proxy-ca.crt")
                + ", key: " + certs.caPemFile().getParent().resolve("proxy-ca.key") + " }\n"
                + "routes:\n"
                + "  - name: named-without-upstream\n"
                + "    match: { host: localhost, pathPrefix: /named/ }\n"
                + "  - name: catch-all\n"
                + "    match: { pathPrefix: / }\n"
                + "    upstream: " + plainUpstream.uri() + "\n");
    }

    @AfterAll
    static void stop() throws Exception {
        proxy.close();
        echo.close();
        tlsUpstream.close();
        plainUpstream.close();
        certs.close();
    }

    /** Echoes every byte back; after the client's FIN, writes {@code END} and closes: a half-close honoured end to end. */
    static void acceptEchoes() {
        while (!echo.isClosed()) {
            try {
                Socket s = echo.accept();
                Thread t = new Thread(() -> {
                    try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                        in.transferTo(out);
                        out.write("END".getBytes(ISO_8859_1));
                    } catch (IOException e) {
                        // the peer went away: nothing to echo
                    }
                }, "echo");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    @Test
    void aBlindTunnelCarriesBytesIntactBothWaysEarlyOnesTooAndHonoursHalfClose() throws Exception {
        byte[] payload = new byte[1 << 20];
        new Random(36).nextBytes(payload);
        byte[] early = Arrays.copyOf(payload, 100);
        double before = ConnectClient.connects(proxy, "tunnelled");
        try (ConnectClient c = ConnectClient.connect(proxy.port(), "127.0.0.1:" + echo.getLocalPort(), early)) {
            assertThat(c.readHead()).isEqualTo("HTTP/1.1 200 Connection established\r\n\r\n");
            CompletableFuture<byte[]> back = CompletableFuture.supplyAsync(() -> {
                try {
                    return c.in().readAllBytes();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            c.out().write(payload, early.length, payload.length - early.length);
            c.out().flush();
            c.socket().shutdownOutput();

            byte[] received = back.get(30, TimeUnit.SECONDS);

            assertThat(received.length).isEqualTo(payload.length + 3);
            assertThat(Arrays.copyOf(received, payload.length)).as("every byte, in order").isEqualTo(payload);
            assertThat(new String(received, payload.length, 3, ISO_8859_1)).as("written after the client's FIN").isEqualTo("END");
        }
        assertThat(ConnectClient.connects(proxy, "tunnelled")).isEqualTo(before + 1);
    }

    @Test
    void aTlsSessionThroughTheTunnelIsTheUpstreamsOwnWhichTheProxyCannotRead() throws Exception {
        HttpClient client = ConnectClient.client(proxy.port(), certs.caPemFile());

        HttpResponse<String> r = client.send(HttpRequest.newBuilder(ConnectClient.https("localhost", tlsUpstream.port(), "/secret"))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("the upstream's own TLS");
        X509Certificate presented = (X509Certificate) r.sslSession().orElseThrow().getPeerCertificates()[0];
        assertThat(presented).as("the upstream's certificate, not one of the proxy's CA").isEqualTo(certs.serverCertificate());
        RecordedRequest seen = tlsUpstream.requests().get(tlsUpstream.requestCount() - 1);
        assertThat(seen.header("X-Forwarded-For")).as("untouched: the proxy added nothing").isNull();
    }

    @Test
    void aSilentTunnelIsClosedAfterItsIdleTimeout() throws Exception {
        try (ConnectClient c = ConnectClient.connect(proxy.port(), "127.0.0.1:" + echo.getLocalPort(), new byte[0])) {
            assertThat(c.readHead()).startsWith("HTTP/1.1 200 ");
            c.out().write('x');
            c.out().flush();
            assertThat(c.in().read()).as("open and echoing").isEqualTo('x');
            // then silence both ways: the proxy closes it, the client sent no FIN (no END from the echo)
            assertThat(c.in().read()).as("closed by the proxy").isEqualTo(-1);
        }
    }

    @Test
    void aTargetThatCannotBeReachedIs502NamingIt() throws Exception {
        int closed = FreePorts.pick();
        try (ConnectClient c = ConnectClient.connect(proxy.port(), "127.0.0.1:" + closed, new byte[0])) {
            String head = c.readHead();
            String body = c.readToClose();
            assertThat(head).startsWith("HTTP/1.1 502 Bad Gateway\r\n").containsIgnoringCase("connection: close");
            assertThat(body).contains("\"type\":\"urn:idemproxy:problem:upstream-unreachable\"")
                    .contains("cannot connect to 127.0.0.1:" + closed + ": ");
        }
    }

    @Test
    void anAbsoluteFormRequestForAHostNoRouteNamesIs404NotTheCatchAll() throws Exception {
        int before = plainUpstream.requestCount();
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write("POST http://payments.example/v1/charges HTTP/1.1\r\nHost: payments.example\r\nContent-Length: 2\r\n\r\n{}");
            RawHttp.Response r = raw.readResponse();
            assertThat(r.status()).isEqualTo(404);
            assertThat(r.bodyAsString()).contains("urn:idemproxy:problem:no-route").contains("payments.example/v1/charges");
        }
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write("GET /v1/charges HTTP/1.1\r\nHost: payments.example\r\n\r\n");
            assertThat(raw.readResponse().status()).as("origin-form still takes the catch-all").isEqualTo(200);
        }
        assertThat(plainUpstream.awaitRequests(before + 1, Duration.ofSeconds(5))).hasSize(before + 1);
        assertThat(plainUpstream.requestCount()).as("only the origin-form request went upstream").isEqualTo(before + 1);
    }

    @Test
    void anAbsoluteFormRequestForANamedHostWithoutUpstreamGoesToThatHost() throws Exception {
        int before = plainUpstream.requestCount();
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port())) {
            raw.write("GET http://localhost:" + plainUpstream.port() + "/named/x?y=1 HTTP/1.1\r\nHost: localhost:"
                    + plainUpstream.port() + "\r\n\r\n");
            assertThat(raw.readResponse().status()).isEqualTo(200);
        }
        RecordedRequest seen = plainUpstream.awaitRequests(before + 1, Duration.ofSeconds(5)).get(before);
        assertThat(seen.uri()).isEqualTo("/named/x?y=1");
        assertThat(seen.header("Host")).isEqualTo("localhost:" + plainUpstream.port());
    }
}
