package dev.idemproxy.core;

import dev.idemproxy.core.net.Transport;

import dev.idemproxy.core.pipeline.ServerPolicy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import dev.idemproxy.core.testing.FreePorts;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code server.transport}: what {@code auto} picks, and the proxy on each transport that runs
 * on this machine: forwarding, a refused upstream, a busy port.
 */
class TransportTest {
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void autoIsIoUringWhereItRunsThenEpollThenNioUnlessTheTestRunNamesOne() {
        String forced = System.getProperty(Transport.OVERRIDE_PROPERTY, "auto");
        Transport expected = switch (forced) {
            case "io_uring" -> Transport.IO_URING;
            case "epoll" -> Transport.EPOLL;
            case "nio" -> Transport.NIO;
            default -> Transport.IO_URING.isAvailable() ? Transport.IO_URING
                    : Transport.EPOLL.isAvailable() ? Transport.EPOLL : Transport.NIO;
        };
        assertThat(Transport.select(Transport.Choice.AUTO)).isEqualTo(expected);
        assertThat(Transport.best()).isEqualTo(expected);
        assertThat(Transport.select(Transport.Choice.NIO)).as("a named transport is not overridden").isEqualTo(Transport.NIO);
    }

    @Test
    void anOverrideThatNamesNoTransportIsRefusedWithTheSpellings() {
        String before = System.getProperty(Transport.OVERRIDE_PROPERTY);
        System.setProperty(Transport.OVERRIDE_PROPERTY, "uring");
        try {
            assertThatThrownBy(() -> Transport.select(Transport.Choice.AUTO))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("-Didemproxy.transport=uring (expected one of: auto, io_uring, epoll, nio)");
        } finally {
            if (before == null) {
                System.clearProperty(Transport.OVERRIDE_PROPERTY);
            } else {
                System.setProperty(Transport.OVERRIDE_PROPERTY, before);
            }
        }
    }

    @Test
    void aNativeTransportThatCannotRunSaysWhyAndNioAlwaysRuns() {
        assertThat(Transport.NIO.isAvailable()).isTrue();
        for (Transport t : List.of(Transport.IO_URING, Transport.EPOLL)) {
            if (t.isAvailable()) {
                assertThat(Transport.select(Transport.Choice.valueOf(t.name()))).isEqualTo(t);
            } else {
                assertThatThrownBy(() -> Transport.select(Transport.Choice.valueOf(t.name())))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageStartingWith("the " + t.spelling() + " transport cannot run here: ");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void theProxyForwardsAnswers502ForARefusedUpstreamAndReportsABusyPortOnEveryTransportThatRunsHere(Transport t)
            throws Exception {
        assumeTrue(t.isAvailable(), t + " does not run on this machine");
        HttpServer upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        upstream.createContext("/", ex -> {
            byte[] in = ex.getRequestBody().readAllBytes();
            byte[] b = (ex.getRequestMethod() + " " + ex.getRequestURI() + " len=" + in.length).getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        upstream.start();
        URI up = URI.create("http://127.0.0.1:" + upstream.getAddress().getPort());
        URI refused = URI.create("http://127.0.0.1:" + FreePorts.pick());
        ProxyConfig cfg = onTransport(t).withRoutes(List.of(
                Route.passThrough("echo", new RouteMatch(null, "/api", Set.of()), up),
                Route.passThrough("gone", new RouteMatch(null, "/gone", Set.of()), refused)));
        ProxyServer proxy = new ProxyServer(cfg);
        proxy.start();
        try {
            String base = "http://127.0.0.1:" + proxy.address().getPort();
            HttpResponse<String> get = client.send(HttpRequest.newBuilder(URI.create(base + "/api/x?q=1")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(get.statusCode()).isEqualTo(200);
            assertThat(get.body()).isEqualTo("GET /api/x?q=1 len=0");
            HttpResponse<String> post = client.send(HttpRequest.newBuilder(URI.create(base + "/api/y"))
                    .POST(HttpRequest.BodyPublishers.ofString("x".repeat(100_000))).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(post.body()).isEqualTo("POST /api/y len=100000");

            HttpResponse<String> gone = client.send(HttpRequest.newBuilder(URI.create(base + "/gone")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(gone.statusCode()).isEqualTo(502);
            assertThat(gone.body()).contains("urn:idemproxy:problem:upstream-unreachable");

            ProxyServer second = new ProxyServer(onTransport(t).withListen(
                    new HostPort("127.0.0.1", proxy.address().getPort()), AdminPolicy.DEFAULT));
            assertThatThrownBy(second::start).isInstanceOf(BindException.class).hasMessageContaining("in use");
        } finally {
            proxy.stop(Duration.ofSeconds(1));
            upstream.stop(0);
        }
    }

    private static ProxyConfig onTransport(Transport t) {
        ProxyConfig base = ProxyConfig.empty().withListen(new HostPort("127.0.0.1", 0), AdminPolicy.DEFAULT);
        ServerPolicy s = base.server();
        return new ProxyConfig(base.listen(), base.shutdownGrace(), base.admin(),
                new ServerPolicy(1, s.maxHeaderSize(), s.maxInitialLine(), Transport.Choice.valueOf(t.name()), s.limits()),
                base.store(), base.tasks(), base.retryBudget(), base.secretHeaders(), base.routes());
    }
}
