package dev.idemproxy.app.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.LeakDetection;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.timeout.IdleStateHandler;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The request handler and the idle close in an {@code EmbeddedChannel}: buffers released, time faked. */
@ExtendWith(LeakDetection.class)
class AdminRequestHandlerTest {
    private final AdminRoutes routes = AdminRoutes.builder()
            .post("/echo", req -> AdminResponse.of(200, "text/plain", req.body()).completed())
            .build();

    @Test
    void requestIsReleasedAndAnswered() {
        EmbeddedChannel ch = new EmbeddedChannel(new AdminRequestHandler(routes, new BearerAuth("")));
        FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/echo",
                Unpooled.copiedBuffer("ping", StandardCharsets.UTF_8));

        ch.writeInbound(req);
        ch.runPendingTasks();
        FullHttpResponse response = ch.readOutbound();

        assertThat(req.refCnt()).isZero();
        try {
            assertThat(response.status().code()).isEqualTo(200);
            assertThat(response.content().toString(StandardCharsets.UTF_8)).isEqualTo("ping");
            assertThat(response.headers().get("content-length")).isEqualTo("4");
        } finally {
            response.release();
        }
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void rejectedRequestsAreReleasedToo() {
        EmbeddedChannel ch = new EmbeddedChannel(new AdminRequestHandler(routes, new BearerAuth("tok")));
        FullHttpRequest unauthorised = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/echo",
                Unpooled.copiedBuffer("ping", StandardCharsets.UTF_8));
        FullHttpRequest malformed = new DefaultFullHttpRequest(HttpVersion.HTTP_1_0, HttpMethod.GET, "/bad-request",
                Unpooled.copiedBuffer("x", StandardCharsets.UTF_8));
        malformed.setDecoderResult(DecoderResult.failure(new IllegalArgumentException("junk")));

        ch.writeInbound(unauthorised, malformed);
        ch.runPendingTasks();
        FullHttpResponse first = ch.readOutbound();
        FullHttpResponse second = ch.readOutbound();

        assertThat(unauthorised.refCnt()).isZero();
        assertThat(malformed.refCnt()).isZero();
        try {
            assertThat(first.status().code()).isEqualTo(401);
            assertThat(second.status().code()).isEqualTo(400);
            assertThat(second.headers().get("connection")).isEqualTo("close");
        } finally {
            first.release();
            second.release();
        }
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void idleConnectionIsClosedAfterTheIdleTime() {
        EmbeddedChannel ch = new EmbeddedChannel(
                new IdleStateHandler(0, 0, AdminChannelInitializer.IDLE_SECONDS, TimeUnit.SECONDS),
                IdleCloseHandler.INSTANCE);

        ch.advanceTimeBy(AdminChannelInitializer.IDLE_SECONDS - 1, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).isTrue();

        ch.advanceTimeBy(2, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void responsesCarryProblemJsonForUnknownPaths() {
        EmbeddedChannel ch = new EmbeddedChannel(new AdminRequestHandler(routes, new BearerAuth("")));

        ch.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/x?y=1"));
        ch.runPendingTasks();
        FullHttpResponse r = ch.readOutbound();

        try {
            assertThat(r.status().code()).isEqualTo(404);
            assertThat(r.headers().get("content-type")).isEqualTo(AdminResponse.PROBLEM_JSON);
            assertThat(r.content().toString(StandardCharsets.UTF_8)).contains("urn:idemproxy:problem:not-found");
        } finally {
            r.release();
        }
    }
}
