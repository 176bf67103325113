package dev.idemproxy.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.idemproxy.core.call.CallLog;
import dev.idemproxy.core.metrics.FrontRejection;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.testing.LeakDetection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.MockTicker;
import io.netty.util.concurrent.Ticker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * The timeout handler behind the real client codec, on an event loop whose clock the test moves:
 * what is answered, closed, counted and logged, and that no buffer is left behind.
 */
@ExtendWith(LeakDetection.class)
class FrontTimeoutHandlerTest {
    static final LimitsPolicy LIMITS = new LimitsPolicy(10, Duration.ofMillis(100), Duration.ofMillis(300),
            Duration.ofMillis(1000), LimitsPolicy.UnderscoreHeaders.DROP);

    private final Logger calls = (Logger) LoggerFactory.getLogger("idemproxy.calls");
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MockTicker ticker = Ticker.newMockTicker();
    private final Probe probe = new Probe();
    private EmbeddedChannel ch;

    @BeforeEach
    void start() {
        lines.start();
        calls.addAppender(lines);
        FrontRejections rejections = new FrontRejections(new CallLog(new ProxyMetrics(registry), false), 10,
                dev.idemproxy.core.util.Ticker.system());
        ch = EmbeddedChannel.builder().ticker(ticker)
                .handlers(new ServerCodec(4096, 8192), new FrontTimeoutHandler(LIMITS, rejections), probe).build();
    }

    @AfterEach
    void stop() {
        calls.detachAppender(lines);
        ch.finishAndReleaseAll();
    }

    @Test
    void aHeadArrivingTooSlowlyIsAnswered408AndClosed() {
        advance(50);
        write("GET /x HTTP/1.1\r\nHo");
        advance(49);
        assertThat(ch.isOpen()).isTrue();
        assertThat(outbound()).isEmpty();
        advance(1);

        assertThat(outbound()).startsWith("HTTP/1.1 408 Request Timeout\r\n")
                .containsIgnoringCase("content-type: application/problem+json")
                .containsIgnoringCase("connection: close")
                .contains("\"type\":\"urn:idemproxy:problem:bad-request\"", "\"status\":408",
                        "the request head did not arrive within limits.headTimeout (100 ms)");
        assertThat(ch.isOpen()).isFalse();
        assertThat(rejections(FrontRejection.HEAD_TIMEOUT)).isEqualTo(1);
        assertThat(callLines()).singleElement().satisfies(l -> assertThat(l)
                .startsWith("[call=-][biz=-][try=0] route=none key=- status=408 outcome=rejected ms=")
                .endsWith(" reason=head_timeout"));
    }

    @Test
    void aNewConnectionThatSendsNothingIsClosedWithoutAnAnswerAndCounted() {
        advance(100);
        assertThat(ch.isOpen()).isFalse();
        assertThat(outbound()).isEmpty();
        assertThat(rejections(FrontRejection.HEAD_TIMEOUT)).isEqualTo(1);
        assertThat(callLines()).as("no request, no call line").isEmpty();
    }

    @Test
    void aBodyArrivingTooSlowlyIsAnswered408AndAnnouncedToTheCallHoldingIt() {
        write("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc");
        advance(200);
        write("def");
        advance(99);
        assertThat(ch.isOpen()).isTrue();
        probe.ownRejections = true;  // as a call still reading the body would
        advance(1);

        assertThat(outbound()).startsWith("HTTP/1.1 408 Request Timeout\r\n")
                .contains("the request body did not arrive within limits.bodyTimeout (300 ms)");
        assertThat(ch.isOpen()).isFalse();
        assertThat(probe.rejected).singleElement().satisfies(r -> {
            assertThat(r.reason).isEqualTo(FrontRejection.BODY_TIMEOUT);
            assertThat(r.status).isEqualTo(408);
        });
        assertThat(rejections(FrontRejection.BODY_TIMEOUT)).isEqualTo(1);
        assertThat(callLines()).as("the owner logs it, under its route").isEmpty();
    }

    @Test
    void aBodyTooSlowAfterItsAnswerStartedIsClosedWithoutA408() {
        write("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc");
        ch.writeOutbound(response("early"));
        String answered = outbound();
        advance(300);

        assertThat(answered).startsWith("HTTP/1.1 200 OK");
        assertThat(outbound()).as("no second answer").isEmpty();
        assertThat(ch.isOpen()).isFalse();
        assertThat(probe.rejected).singleElement().satisfies(r -> assertThat(r.status).isZero());
        assertThat(rejections(FrontRejection.BODY_TIMEOUT)).isEqualTo(1);
        assertThat(callLines()).as("the request was logged when it was answered").isEmpty();
    }

    @Test
    void aConnectionWithACallInFlightIsNotIdleAndOneIdleAfterItsAnswerIsClosed() {
        write("GET /x HTTP/1.1\r\nHost: a\r\n\r\n");
        advance(5_000);
        assertThat(ch.isOpen()).as("the upstream is working").isTrue();
        ch.writeOutbound(response("done"));
        assertThat(outbound()).startsWith("HTTP/1.1 200 OK");
        advance(999);
        assertThat(ch.isOpen()).isTrue();
        advance(1);

        assertThat(ch.isOpen()).isFalse();
        assertThat(outbound()).isEmpty();
        assertThat(registry.find(ProxyMetrics.FRONT_REJECTIONS).counters()).allSatisfy(c -> assertThat(c.count()).isZero());
    }

    @Test
    void keepAliveRequestsEachGetTheirOwnHeadClock() {
        for (int i = 0; i < 3; i++) {
            advance(i == 0 ? 0 : 900);  // idle, but less than idleTimeout
            write("GET /" + i + " HTTP/1.1\r\n");
            advance(90);
            write("Host: a\r\n\r\n");
            ch.writeOutbound(response("r" + i));
            assertThat(outbound()).startsWith("HTTP/1.1 200 OK");
        }
        assertThat(ch.isOpen()).isTrue();
        assertThat(probe.heads).isEqualTo(3);
    }

    @Test
    void aDrainingServerClosesAConnectionOnceNothingIsUnanswered() {
        write("GET /x HTTP/1.1\r\nHost: a\r\n\r\n");
        ch.pipeline().fireUserEventTriggered(ServerDrainEvent.INSTANCE);
        assertThat(ch.isOpen()).as("its call is in flight").isTrue();
        ch.writeOutbound(response("done"));
        ch.runPendingTasks();

        assertThat(outbound()).startsWith("HTTP/1.1 200 OK");
        assertThat(ch.isOpen()).isFalse();
    }

    private void advance(long millis) {
        ticker.advance(millis, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        ch.runPendingTasks();
    }

    private void write(String ascii) {
        ch.writeInbound(Unpooled.copiedBuffer(ascii, StandardCharsets.US_ASCII));
    }

    private static DefaultFullHttpResponse response(String body) {
        DefaultFullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.copiedBuffer(body, StandardCharsets.US_ASCII));
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length());
        return r;
    }

    private String outbound() {
        StringBuilder sb = new StringBuilder();
        for (Object o; (o = ch.readOutbound()) != null; ) {
            sb.append(((ByteBuf) o).toString(StandardCharsets.US_ASCII));
            ReferenceCountUtil.release(o);
        }
        return sb.toString();
    }

    private double rejections(FrontRejection reason) {
        return registry.get(ProxyMetrics.FRONT_REJECTIONS).tag("reason", reason.spelling()).counter().count();
    }

    private List<String> callLines() {
        return lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    /** The rest of the pipeline: counts what arrives (and releases it), records rejections, may own them. */
    static final class Probe extends ChannelDuplexHandler {
        final List<FrontRejected> rejected = new ArrayList<>();
        boolean ownRejections;
        int heads;
        int contents;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof io.netty.handler.codec.http.HttpRequest) {
                heads++;
            } else if (msg instanceof HttpObject) {
                contents++;
            }
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof FrontRejected r) {
                rejected.add(r);
                if (ownRejections) {
                    r.own();
                }
            }
        }
    }
}
