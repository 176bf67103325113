package dev.idemproxy.core.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.LeakDetection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the listener hears: a response read whole as one {@code onFullResponse}; a head whose body
 * is not in the same read on its own at the end of that read (a stream's head is never kept
 * waiting for its first event); a head before what follows it in all other cases.
 */
@ExtendWith(LeakDetection.class)
class UpstreamHandlerTest {
    private EmbeddedChannel ch;
    private final Recorder events = new Recorder();

    @BeforeEach
    void connect() {
        UpstreamHandler handler = new UpstreamHandler();
        ch = new EmbeddedChannel(new HttpClientCodec(), handler);
        handler.attach(events);
        // the client codec learns the request's method from the request it sends
        ch.writeOutbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/x"));
        Object out;
        while ((out = ch.readOutbound()) != null) {
            ReferenceCountUtil.release(out);
        }
    }

    @AfterEach
    void close() {
        events.release();
        ch.finishAndReleaseAll();
    }

    @Test
    void aResponseReadWholeComesAsOne() {
        read("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
        assertThat(events.log).containsExactly("full 200 hello", "readComplete");
    }

    @Test
    void aHeadWithoutItsBodyGoesOnAtTheEndOfItsRead() {
        read("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
        assertThat(events.log).containsExactly("head 200", "readComplete");
        read("6\r\ndata:1\r\n");
        assertThat(events.log).containsExactly("head 200", "readComplete", "content data:1", "readComplete");
    }

    @Test
    void aHeadWithPartOfItsBodyGoesFirst() {
        read("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello");
        read("world");
        assertThat(events.log).containsExactly("head 200", "content hello", "readComplete", "last world", "readComplete");
    }

    @Test
    void aHeadIsHandedOnBeforeTheConnectionCloses() {
        ByteBuf head = ascii("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n");
        ch.pipeline().fireChannelRead(head);  // a read whose end never comes: the connection drops first
        ch.close();
        assertThat(events.log).startsWith("head 200").contains("closed");
        assertThat(events.log.indexOf("head 200")).isLessThan(events.log.indexOf("closed"));
    }

    @Test
    void interimResponsesAreDroppedAndTheFinalOneStillComesWhole() {
        read("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok");
        assertThat(events.log).containsExactly("full 201 ok", "readComplete");
    }

    private void read(String wire) {
        ch.writeInbound(ascii(wire));
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }

    private static final class Recorder implements UpstreamListener {
        final List<String> log = new ArrayList<>();
        final List<Object> held = new ArrayList<>();

        @Override
        public void onResponseHead(HttpResponse response) {
            log.add("head " + response.status().code());
        }

        @Override
        public void onResponseContent(HttpContent content) {
            log.add((content instanceof LastHttpContent ? "last " : "content ") + content.content().toString(StandardCharsets.US_ASCII));
            held.add(content);
        }

        @Override
        public void onFullResponse(HttpResponse head, LastHttpContent last) {
            log.add("full " + head.status().code() + " " + last.content().toString(StandardCharsets.US_ASCII));
            held.add(last);
        }

        @Override
        public void onReadComplete() {
            log.add("readComplete");
        }

        @Override
        public void onWritabilityChanged(boolean writable) {
        }

        @Override
        public void onUpstreamClosed(Throwable cause) {
            log.add("closed");
        }

        @Override
        public void onUpstreamIdle() {
        }

        void release() {
            held.forEach(ReferenceCountUtil::release);
        }
    }
}
