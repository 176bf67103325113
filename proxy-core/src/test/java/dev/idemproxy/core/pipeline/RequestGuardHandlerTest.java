package dev.idemproxy.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.pipeline.LimitsPolicy.UnderscoreHeaders;
import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.call.CallLog;
import dev.idemproxy.core.metrics.FrontRejection;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.testing.LeakDetection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What the guard lets through and what it answers itself, on the client codec's output. */
@ExtendWith(LeakDetection.class)
class RequestGuardHandlerTest {
    @ParameterizedTest
    @ValueSource(strings = {"HTTP/9.9", "HTTP/2.0", "HTTP/3.0", "HTTP/0.9", "HTTP/1.2"})
    void aVersionOtherThan10And11Is505BadRequestAndCloses(String version) {
        EmbeddedChannel ch = channel();
        ch.writeInbound(ascii("GET /x " + version + "\r\nHost: a\r\n\r\n"));

        assertThat((Object) ch.readInbound()).as("nothing goes further").isNull();
        String answer = outbound(ch);
        assertThat(answer).startsWith("HTTP/1.1 505 HTTP Version Not Supported\r\n")
                .containsIgnoringCase("content-type: application/problem+json")
                .containsIgnoringCase("connection: close")
                .contains("\"type\":\"urn:idemproxy:problem:bad-request\"")
                .contains("\"status\":505")
                .contains("\"detail\":\"HTTP version " + version + " is unsupported (expected: HTTP/1.1 or HTTP/1.0)\"");
        assertThat(ch.isOpen()).isFalse();
        ch.finishAndReleaseAll();
    }

    @ParameterizedTest
    @ValueSource(strings = {"HTTP/1.1", "HTTP/1.0"})
    void http11And10PassThrough(String version) {
        EmbeddedChannel ch = channel();
        ch.writeInbound(ascii("GET /x " + version + "\r\nHost: a\r\n\r\n"));

        HttpRequest req = ch.readInbound();
        assertThat(req.protocolVersion().text()).isEqualTo(version);
        ReferenceCountUtil.release(req);
        assertThat((Object) ch.readOutbound()).isNull();
        assertThat(ch.isOpen()).isTrue();
        ch.finishAndReleaseAll();
    }

    @Test
    void aMalformedVersionIsStill400() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(ascii("GET /x HTTPS/1.1\r\nHost: a\r\n\r\n"));

        assertThat(outbound(ch)).startsWith("HTTP/1.1 400 Bad Request\r\n").contains("urn:idemproxy:problem:bad-request");
        assertThat(ch.isOpen()).isFalse();
        ch.finishAndReleaseAll();
    }

    @ParameterizedTest
    @ValueSource(strings = {"a b", "a@b", "a/b", "tickets.internal\\x"})
    void aHostThatIsNotHostAndPortIs400(String host) {
        EmbeddedChannel ch = channel();
        ch.writeInbound(ascii("GET /x HTTP/1.1\r\nHost: " + host + "\r\n\r\n"));

        assertThat((Object) ch.readInbound()).as("nothing goes further").isNull();
        assertThat(outbound(ch)).startsWith("HTTP/1.1 400 Bad Request\r\n")
                .contains("\"detail\":\"the Host header is not a host[:port]\"");
        assertThat(ch.isOpen()).isFalse();
        ch.finishAndReleaseAll();
    }

    @ParameterizedTest
    @ValueSource(strings = {"tickets.internal", "TICKETS.internal:8443", "[::1]:8080", "10.0.0.7", "my_svc.ns.svc.cluster.local", ""})
    void hostsAndPortsPass(String host) {
        EmbeddedChannel ch = channel();
        ch.writeInbound(ascii("GET /x HTTP/1.1\r\nHost: " + host + "\r\n\r\n"));

        HttpRequest req = ch.readInbound();
        assertThat(req).as("Host: %s", host).isNotNull();
        ReferenceCountUtil.release(req);
        ch.finishAndReleaseAll();
    }

    @Test
    void aTransferCodingOtherThanChunkedAloneIs501AndCloses() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(ascii("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"));

        assertThat((Object) ch.readInbound()).as("nothing goes further").isNull();
        assertThat(outbound(ch)).startsWith("HTTP/1.1 501 Not Implemented\r\n")
                .contains("\"type\":\"urn:idemproxy:problem:bad-request\"")
                .contains("\"detail\":\"Transfer-Encoding 'gzip, chunked' is not supported (expected: chunked alone)\"");
        assertThat(ch.isOpen()).isFalse();
        ch.finishAndReleaseAll();
    }

    @Test
    void chunkedAlonePasses() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(ascii("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"));

        Object head = ch.readInbound();
        assertThat(head).isInstanceOf(HttpRequest.class);
        ReferenceCountUtil.release(head);
        for (Object o; (o = ch.readInbound()) != null; ) {
            ReferenceCountUtil.release(o);
        }
        assertThat(ch.isOpen()).isTrue();
        ch.finishAndReleaseAll();
    }

    private static EmbeddedChannel channel() {
        return channel(UnderscoreHeaders.DROP, new SimpleMeterRegistry());
    }

    private static EmbeddedChannel channel(UnderscoreHeaders underscores, SimpleMeterRegistry registry) {
        FrontRejections rejections = new FrontRejections(new CallLog(new ProxyMetrics(registry), false), 10, Ticker.system());
        return new EmbeddedChannel(new ServerCodec(4096, 8192), new RequestGuardHandler(underscores, rejections));
    }

    private static final String SMUGGLING = "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer_Encoding: chunked\r\n"
            + "X_Forwarded_Host: evil\r\nX-Task-Id: t\r\n\r\nabc";

    @Test
    void headerNamesWithUnderscoresAreDroppedByDefaultBeforeAnythingReadsThem() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(ascii(SMUGGLING));

        FullHttpRequest req = ch.readInbound();
        assertThat(req.headers().names()).containsExactlyInAnyOrder("Host", "Content-Length", "X-Task-Id");
        assertThat(req.content().toString(StandardCharsets.US_ASCII)).isEqualTo("abc");
        req.release();
        assertThat(ch.isOpen()).isTrue();
        ch.finishAndReleaseAll();
    }

    @Test
    void headerNamesWithUnderscoresAreKeptWhenForwarded() {
        EmbeddedChannel ch = channel(UnderscoreHeaders.FORWARD, new SimpleMeterRegistry());
        ch.writeInbound(ascii(SMUGGLING));

        FullHttpRequest req = ch.readInbound();
        assertThat(req.headers().get("Transfer_Encoding")).isEqualTo("chunked");
        assertThat(req.headers().get("X_Forwarded_Host")).isEqualTo("evil");
        req.release();
        ch.finishAndReleaseAll();
    }

    @Test
    void headerNamesWithUnderscoresAreRefusedWith400WhenSoConfiguredAndCountedAsMalformed() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        EmbeddedChannel ch = channel(UnderscoreHeaders.REJECT, registry);
        ch.writeInbound(ascii(SMUGGLING));

        assertThat((Object) ch.readInbound()).as("nothing goes further").isNull();
        assertThat(outbound(ch)).startsWith("HTTP/1.1 400 Bad Request\r\n")
                .contains("\"type\":\"urn:idemproxy:problem:bad-request\"")
                .contains("header name 'Transfer_Encoding' contains '_'");
        assertThat(ch.isOpen()).isFalse();
        assertThat(registry.get(ProxyMetrics.FRONT_REJECTIONS).tag("reason", "malformed").counter().count()).isEqualTo(1);
        ch.finishAndReleaseAll();
    }

    @Test
    void aHeaderBlockOverTheLimitIsCountedTooLarge() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        EmbeddedChannel ch = channel(UnderscoreHeaders.DROP, registry);
        ch.writeInbound(ascii("GET /x HTTP/1.1\r\nHost: a\r\nX-Big: " + "b".repeat(9000) + "\r\n\r\n"));

        assertThat(outbound(ch)).startsWith("HTTP/1.1 431 ");
        assertThat(registry.get(ProxyMetrics.FRONT_REJECTIONS).tag("reason", "too_large").counter().count()).isEqualTo(1);
        ch.finishAndReleaseAll();
    }

    @Test
    void aBodyFailingToDecodeIsAnnouncedToTheCallThatHoldsTheRequest() {
        List<FrontRejected> seen = new ArrayList<>();
        EmbeddedChannel ch = channel();
        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ReferenceCountUtil.release(msg);
            }

            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                if (evt instanceof FrontRejected r) {
                    seen.add(r);
                    r.own();
                }
            }
        });
        ch.writeInbound(ascii("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\n"));

        assertThat(seen).singleElement().satisfies(r -> {
            assertThat(r.reason).isEqualTo(FrontRejection.MALFORMED);
            assertThat(r.status).isEqualTo(400);
        });
        assertThat(outbound(ch)).startsWith("HTTP/1.1 400 Bad Request\r\n").contains("malformed request body");
        assertThat(ch.isOpen()).isFalse();
        ch.finishAndReleaseAll();
    }

    private static String outbound(EmbeddedChannel ch) {
        StringBuilder sb = new StringBuilder();
        for (Object o; (o = ch.readOutbound()) != null; ) {
            ByteBuf b = (ByteBuf) o;
            sb.append(b.toString(StandardCharsets.US_ASCII));
            b.release();
        }
        return sb.toString();
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }
}
