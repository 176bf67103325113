package dev.idemproxy.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.idemproxy.core.call.CallLog;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.dlq.DeadLetterPolicy;
import dev.idemproxy.core.metrics.FrontRejection;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.route.IdsPolicy;
import dev.idemproxy.core.retry.RetryPolicy;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import dev.idemproxy.core.route.Timeouts;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.OneLoopProxy;
import dev.idemproxy.core.route.PoolPolicy;
import dev.idemproxy.core.route.TlsPolicy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/** A protected call's body, buffered here, when the front refuses the request midway. */
@ExtendWith(LeakDetection.class)
class BodyAggregatorHandlerTest {
    static final Route PROTECTED = new Route("orders", RouteMatch.ANY, URI.create("http://127.0.0.1:9"), Set.of(),
            Timeouts.DEFAULT, OneLoopProxy.protectPosts(Duration.ofMinutes(1)), RetryPolicy.DEFAULT, IdsPolicy.DEFAULT, null,
            DeadLetterPolicy.DEFAULT, TlsPolicy.DEFAULT, PoolPolicy.DEFAULT);

    private final Logger calls = (Logger) LoggerFactory.getLogger("idemproxy.calls");
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    @BeforeEach
    void capture() {
        lines.start();
        calls.addAppender(lines);
    }

    @AfterEach
    void release() {
        calls.detachAppender(lines);
    }

    @Test
    void aRefusalWhileTheBodyIsBufferedDropsTheBufferAndLogsTheCallUnderItsRoute() {
        EmbeddedChannel ch = new EmbeddedChannel(new BodyAggregatorHandler(new CallLog(new ProxyMetrics(new SimpleMeterRegistry()),
                false)));
        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/orders");
        head.headers().set("Content-Length", "10");
        ch.writeInbound(new ProxyCall(head, PROTECTED, "a", "/orders", System.nanoTime()));
        ch.writeInbound(new DefaultHttpContent(Unpooled.copiedBuffer("abc", StandardCharsets.US_ASCII)));

        FrontRejected rejected = new FrontRejected(FrontRejection.BODY_TIMEOUT, 408);
        ch.pipeline().fireUserEventTriggered(rejected);
        ch.writeInbound(new DefaultLastHttpContent(Unpooled.copiedBuffer("defghij", StandardCharsets.US_ASCII)));

        assertThat(rejected.owned()).isTrue();
        assertThat((Object) ch.readInbound()).as("nothing goes on").isNull();
        assertThat(lines.list).singleElement().satisfies(e -> assertThat(e.getFormattedMessage())
                .startsWith("[call=-][biz=-][try=0] route=orders key=- status=408 outcome=rejected ms=")
                .endsWith(" reason=body_timeout"));
        ch.finishAndReleaseAll();
    }

    @Test
    void aRefusalWithNoBodyBeingBufferedIsNotItsToOwn() {
        EmbeddedChannel ch = new EmbeddedChannel(new BodyAggregatorHandler(new CallLog(ProxyMetrics.noop(), false)));
        FrontRejected rejected = new FrontRejected(FrontRejection.MALFORMED, 400);
        ch.pipeline().fireUserEventTriggered(rejected);

        assertThat(rejected.owned()).isFalse();
        assertThat(lines.list).isEmpty();
        ch.finishAndReleaseAll();
    }
}
