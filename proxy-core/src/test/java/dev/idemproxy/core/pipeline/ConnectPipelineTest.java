package dev.idemproxy.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.net.Transport;
import dev.idemproxy.core.forward.ForwardProxy;
import dev.idemproxy.core.forward.ForwardProxyPolicy;
import dev.idemproxy.core.forward.ForwardProxyPolicy.ConnectMode;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import dev.idemproxy.core.route.RouteTable;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.upstream.UpstreamPools;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A CONNECT on the real client pipeline (an EmbeddedChannel): the order with {@code forwardProxy},
 * the pipeline an interception leaves, and the refusals, with every buffer released.
 */
@ExtendWith(LeakDetection.class)
class ConnectPipelineTest {
    final Path dir = Files.createTempDirectory("idemproxy-connect");
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final UpstreamPools pools = new UpstreamPools(Transport.NIO);
    final ServerState state = new ServerState();
    ForwardProxy forward;

    ConnectPipelineTest() throws Exception {
        Route stripe = Route.passThrough("stripe", new RouteMatch("api.stripe.com", "/v1/", Set.of()), null);
        state.routes(RouteTable.of(List.of(new Route(stripe.name(), stripe.match(), null, stripe.tags(), stripe.timeouts(),
                stripe.idempotency(), stripe.retry(), stripe.ids(), null, stripe.deadLetter(), stripe.tls(), stripe.pool(),
                stripe.log(), true))));
    }

    @AfterEach
    void close() throws Exception {
        if (forward != null) {
            forward.close();
        }
        pools.close();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    EmbeddedChannel channel(ConnectMode mode) throws Exception {
        ForwardProxyPolicy policy = new ForwardProxyPolicy(mode, dir.resolve("ca.crt"), dir.resolve("ca.key"),
                Duration.ofMinutes(5), Duration.ofSeconds(10));
        forward = ForwardProxy.start(policy, Transport.NIO, pools::resolve, new ProxyMetrics(registry), false,
                Clock.systemUTC(), Ticker.system(), null);
        ProxyChannelInitializer init = new ProxyChannelInitializer(ServerPolicy.DEFAULT, state, PipelineOrderTest.services(pools),
                new DefaultChannelGroup(GlobalEventExecutor.INSTANCE), forward);
        EmbeddedChannel ch = new EmbeddedChannel();
        init.addHandlers(ch.pipeline(), ch);
        return ch;
    }

    static List<String> handlers(EmbeddedChannel ch) {
        List<String> names = ch.pipeline().names();
        return names.subList(0, names.size() - 1);
    }

    static String outbound(EmbeddedChannel ch) {
        StringBuilder sb = new StringBuilder();
        ByteBuf b;
        while ((b = ch.readOutbound()) != null) {
            sb.append(b.toString(StandardCharsets.ISO_8859_1));
            b.release();
        }
        return sb.toString();
    }

    double connects(String result) {
        return registry.get(ProxyMetrics.CONNECT).tag("result", result).counter().count();
    }

    @Test
    void withForwardProxyTheConnectHandlerSitsBeforeTheGuard() throws Exception {
        EmbeddedChannel ch = channel(ConnectMode.TUNNEL);
        assertThat(handlers(ch)).containsExactly(
                PipelineNames.HTTP_CODEC, PipelineNames.TIMEOUTS, PipelineNames.SEQUENCER,
                PipelineNames.KEEP_ALIVE, PipelineNames.CONNECT, PipelineNames.GUARD, PipelineNames.ROUTE, PipelineNames.BODY,
                PipelineNames.IDEMPOTENCY, PipelineNames.FORWARD, PipelineNames.PROBLEMS);
        assertThat(connects("intercepted") + connects("tunnelled") + connects("refused")).as("registered at zero").isZero();
        ch.finishAndReleaseAll();
    }

    @Test
    void anInterceptedConnectIsAnswered200AndItsPipelineIsTlsThenTheHttpStackWithoutConnect() throws Exception {
        EmbeddedChannel ch = channel(ConnectMode.REFUSE);
        ch.writeInbound(Unpooled.copiedBuffer("CONNECT api.stripe.com:443 HTTP/1.1\r\nHost: api.stripe.com:443\r\n\r\n",
                StandardCharsets.US_ASCII));

        assertThat(outbound(ch)).isEqualTo("HTTP/1.1 200 Connection established\r\n\r\n");
        assertThat(handlers(ch)).containsExactly(
                PipelineNames.TLS, PipelineNames.HTTP_CODEC, PipelineNames.TIMEOUTS, PipelineNames.SEQUENCER,
                PipelineNames.KEEP_ALIVE, PipelineNames.GUARD, PipelineNames.ROUTE, PipelineNames.BODY,
                PipelineNames.IDEMPOTENCY, PipelineNames.FORWARD, PipelineNames.PROBLEMS);
        assertThat(ch.isOpen()).isTrue();
        assertThat(connects("intercepted")).isEqualTo(1.0);
        ch.finishAndReleaseAll();
    }

    @Test
    void aConnectToAnotherHostIsRefused403WhenConfiguredSo() throws Exception {
        EmbeddedChannel ch = channel(ConnectMode.REFUSE);
        ch.writeInbound(Unpooled.copiedBuffer("CONNECT api.github.com:443 HTTP/1.1\r\nHost: api.github.com:443\r\n\r\n",
                StandardCharsets.US_ASCII));

        String answer = outbound(ch);
        assertThat(answer).startsWith("HTTP/1.1 403 Forbidden\r\n")
                .containsIgnoringCase("content-type: application/problem+json")
                .contains("\"type\":\"urn:idemproxy:problem:connect-refused\"")
                .contains("CONNECT to api.github.com:443 is refused");
        assertThat(ch.isOpen()).isFalse();
        assertThat(connects("refused")).isEqualTo(1.0);
        ch.finishAndReleaseAll();
    }

    @Test
    void aConnectTargetThatIsNotHostColonPortIs400() throws Exception {
        EmbeddedChannel ch = channel(ConnectMode.TUNNEL);
        ch.writeInbound(Unpooled.copiedBuffer("CONNECT /not-an-authority HTTP/1.1\r\nHost: a\r\n\r\n", StandardCharsets.US_ASCII));

        assertThat(outbound(ch)).startsWith("HTTP/1.1 400 Bad Request\r\n")
                .contains("\"type\":\"urn:idemproxy:problem:bad-request\"")
                .contains("CONNECT target '/not-an-authority' (expected: host:port, port 1-65535)");
        assertThat(ch.isOpen()).isFalse();
        assertThat(connects("tunnelled") + connects("refused") + connects("intercepted")).isZero();
        ch.finishAndReleaseAll();
    }

    @Test
    void withoutForwardProxyConnectIsStill405() {
        ProxyChannelInitializer init = new ProxyChannelInitializer(ServerPolicy.DEFAULT, state, PipelineOrderTest.services(pools),
                new DefaultChannelGroup(GlobalEventExecutor.INSTANCE));
        EmbeddedChannel ch = new EmbeddedChannel();
        init.addHandlers(ch.pipeline(), ch);
        ch.writeInbound(Unpooled.copiedBuffer("CONNECT api.stripe.com:443 HTTP/1.1\r\nHost: api.stripe.com:443\r\n\r\n",
                StandardCharsets.US_ASCII));

        assertThat(outbound(ch)).startsWith("HTTP/1.1 405 Method Not Allowed\r\n")
                .contains("\"type\":\"urn:idemproxy:problem:method-not-supported\"");
        assertThat(ch.isOpen()).isFalse();
        ch.finishAndReleaseAll();
    }
}
