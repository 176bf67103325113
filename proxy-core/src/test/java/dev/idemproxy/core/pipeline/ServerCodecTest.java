package dev.idemproxy.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.LeakDetection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What the client codec hands on: a request read whole as one message, anything longer as head and contents. */
@ExtendWith(LeakDetection.class)
class ServerCodecTest {
    @Test
    void aRequestWithoutBodyIsOneMessage() {
        List<Object> msgs = decode("GET /a HTTP/1.1\r\nHost: h\r\n\r\n");
        assertThat(msgs).hasSize(1);
        FullHttpRequest r = (FullHttpRequest) msgs.get(0);
        assertThat(r.uri()).isEqualTo("/a");
        assertThat(r.headers().get("Host")).isEqualTo("h");
        assertThat(r.content().readableBytes()).isZero();
        release(msgs);
    }

    @Test
    void aBodyInTheSameReadJoinsItsHead() {
        List<Object> msgs = decode("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello");
        assertThat(msgs).hasSize(1);
        FullHttpRequest r = (FullHttpRequest) msgs.get(0);
        assertThat(r.content().toString(StandardCharsets.US_ASCII)).isEqualTo("hello");
        release(msgs);
    }

    @Test
    void pipelinedRequestsInOneReadAreEachOneMessage() {
        List<Object> msgs = decode("POST /1 HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nab"
                + "GET /2 HTTP/1.1\r\nHost: h\r\n\r\n"
                + "POST /3 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
        assertThat(msgs).hasSize(3).allMatch(m -> m instanceof FullHttpRequest);
        assertThat(((HttpRequest) msgs.get(0)).uri()).isEqualTo("/1");
        assertThat(((FullHttpRequest) msgs.get(0)).content().toString(StandardCharsets.US_ASCII)).isEqualTo("ab");
        assertThat(((HttpRequest) msgs.get(2)).headers().get("Transfer-Encoding")).isEqualTo("chunked");
        release(msgs);
    }

    @Test
    void aBodyStillOnItsWayStreamsAfterItsHead() {
        EmbeddedChannel ch = new EmbeddedChannel(new ServerCodec(4096, 8192));
        List<Object> msgs = new ArrayList<>();
        ch.writeInbound(ascii("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nhello"));
        drain(ch, msgs);
        assertThat(msgs).hasSize(2);
        assertThat(msgs.get(0)).isInstanceOf(HttpRequest.class).isNotInstanceOf(HttpContent.class);
        assertThat(msgs.get(1)).isInstanceOf(HttpContent.class).isNotInstanceOf(LastHttpContent.class);
        ch.writeInbound(ascii("world"));
        drain(ch, msgs);
        assertThat(msgs).hasSize(3);
        assertThat(msgs.get(2)).isInstanceOf(LastHttpContent.class);
        assertThat(((HttpContent) msgs.get(2)).content().toString(StandardCharsets.US_ASCII)).isEqualTo("world");
        release(msgs);
        ch.finishAndReleaseAll();
    }

    @Test
    void chunksAndTrailersOfAStreamedBodyAreNotJoined() {
        List<Object> msgs = decode("POST /p HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-T: 1\r\n\r\n");
        assertThat(msgs).hasSize(3);
        assertThat(msgs.get(0)).isNotInstanceOf(HttpContent.class);
        assertThat(((LastHttpContent) msgs.get(2)).trailingHeaders().get("X-T")).isEqualTo("1");
        release(msgs);
    }

    @Test
    void aBadBodyIsNotJoinedSoTheGuardSeesItsFailure() {
        List<Object> msgs = decode("POST /p HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
        assertThat(msgs.get(0)).isNotInstanceOf(HttpContent.class);
        assertThat(msgs).anyMatch(m -> m instanceof HttpContent && ((HttpContent) m).decoderResult().isFailure());
        release(msgs);
    }

    @Test
    void ambiguousFramingIsStillRefused() {
        List<Object> msgs = decode("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc");
        assertThat(((HttpRequest) msgs.get(0)).decoderResult().cause()).isInstanceOf(ServerCodec.AmbiguousFramingException.class);
        release(msgs);
    }

    @Test
    void theFirstByteOfEachRequestIsAnnouncedAheadOfItsMessages() {
        List<String> seen = new ArrayList<>();
        EmbeddedChannel ch = new EmbeddedChannel(new ServerCodec(4096, 8192), new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                seen.add(msg instanceof HttpRequest ? ((HttpRequest) msg).uri() + (msg instanceof LastHttpContent ? " whole" : "")
                        : msg instanceof LastHttpContent ? "last" : "content");
                ReferenceCountUtil.release(msg);
            }

            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                seen.add(evt == ServerCodec.RequestStarted.INSTANCE ? "started" : evt.toString());
            }
        });
        for (char c : "GET /1 HTTP/1.1\r\n".toCharArray()) {
            ch.writeInbound(ascii(String.valueOf(c)));  // a head one byte at a time: one start
        }
        ch.writeInbound(ascii("Host: h\r\n\r\nPOST /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nab"));
        ch.writeInbound(ascii("cd"));
        ch.writeInbound(ascii("GET /3 HT"));
        ch.writeInbound(ascii("TP/1.1\r\nHost: h\r\n\r\n"));

        assertThat(seen).containsExactly("started", "/1 whole", "started", "/2", "content", "last", "started", "/3 whole");
        ch.finishAndReleaseAll();
    }

    private static List<Object> decode(String wire) {
        EmbeddedChannel ch = new EmbeddedChannel(new ServerCodec(4096, 8192));
        ch.writeInbound(ascii(wire));
        List<Object> msgs = new ArrayList<>();
        drain(ch, msgs);
        ch.finishAndReleaseAll();
        return msgs;
    }

    private static void drain(EmbeddedChannel ch, List<Object> into) {
        Object m;
        while ((m = ch.readInbound()) != null) {
            into.add(m);
        }
    }

    private static void release(List<Object> msgs) {
        msgs.forEach(ReferenceCountUtil::release);
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }
}
