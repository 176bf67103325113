package dev.idemproxy.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.LeakDetection;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** When the client connection stays open after a response, on an EmbeddedChannel. */
@ExtendWith(LeakDetection.class)
class KeepAliveHandlerTest {

    private static EmbeddedChannel afterRequest(HttpVersion version, HttpMethod method, String connection) {
        EmbeddedChannel ch = new EmbeddedChannel(new KeepAliveHandler());
        DefaultFullHttpRequest req = new DefaultFullHttpRequest(version, method, "/");
        if (connection != null) {
            req.headers().set(HttpHeaderNames.CONNECTION, connection);
        }
        ch.writeInbound(req);
        ReferenceCountUtil.release(ch.readInbound());
        return ch;
    }

    private static FullHttpResponse bodiless(HttpResponseStatus status) {
        return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status);
    }

    private static String connectionHeaderOfWritten(EmbeddedChannel ch) {
        HttpResponse written = ch.readOutbound();
        try {
            return written.headers().get(HttpHeaderNames.CONNECTION);
        } finally {
            ReferenceCountUtil.release(written);
        }
    }

    @Test
    void aResponseWithALengthKeepsTheConnection() {
        EmbeddedChannel ch = afterRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, null);
        FullHttpResponse ok = bodiless(HttpResponseStatus.OK);
        ok.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
        ch.writeOutbound(ok);
        assertThat(connectionHeaderOfWritten(ch)).isNull();
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void a304Or204WithoutALengthKeepsTheConnection() {
        for (HttpResponseStatus status : new HttpResponseStatus[] {HttpResponseStatus.NOT_MODIFIED, HttpResponseStatus.NO_CONTENT}) {
            EmbeddedChannel ch = afterRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, null);
            ch.writeOutbound(bodiless(status));
            assertThat(connectionHeaderOfWritten(ch)).as("%s", status).isNull();
            assertThat(ch.isOpen()).as("%s", status).isTrue();
        }
    }

    @Test
    void anAnswerToHeadWithoutALengthKeepsTheConnection() {
        EmbeddedChannel ch = afterRequest(HttpVersion.HTTP_1_1, HttpMethod.HEAD, null);
        ch.writeOutbound(bodiless(HttpResponseStatus.OK));
        assertThat(connectionHeaderOfWritten(ch)).isNull();
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void aBodyWithoutALengthClosesOnceItsLastPartIsWritten() {
        EmbeddedChannel ch = afterRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, null);
        ch.writeOutbound(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        assertThat(connectionHeaderOfWritten(ch)).isEqualTo("close");
        assertThat(ch.isOpen()).as("open until the body ends").isTrue();
        ch.writeOutbound(LastHttpContent.EMPTY_LAST_CONTENT);
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void aRequestThatAsksForCloseGetsItAfterAnInterimResponse() {
        EmbeddedChannel ch = afterRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "close");
        ch.writeOutbound(bodiless(HttpResponseStatus.CONTINUE));
        assertThat(connectionHeaderOfWritten(ch)).as("a 1xx says nothing of the connection").isNull();
        assertThat(ch.isOpen()).as("a 1xx does not end the exchange").isTrue();
        FullHttpResponse ok = bodiless(HttpResponseStatus.OK);
        ok.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
        ch.writeOutbound(ok);
        assertThat(connectionHeaderOfWritten(ch)).isEqualTo("close");
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void anHttp10RequestWithoutKeepAliveCloses() {
        EmbeddedChannel ch = afterRequest(HttpVersion.HTTP_1_0, HttpMethod.GET, null);
        FullHttpResponse ok = bodiless(HttpResponseStatus.OK);
        ok.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
        ch.writeOutbound(ok);
        assertThat(ch.isOpen()).isFalse();
    }
}
