package dev.idemproxy.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A tools/list answer read as it passes, in the pieces a stream comes in, without changing them. */
class ToolsListObserverTest {
    private static final String PAGE = "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"tools\":["
            + "{\"name\":\"search_docs\",\"annotations\":{\"readOnlyHint\":true}},{\"name\":\"set_flag\",\"annotations\":{\"idempotentHint\":true}}]}}";

    private final ToolCatalogue catalogue = new ToolCatalogue();

    @Test
    void aJsonAnswerFeedsTheCatalogueOnceWholeAndEveryPieceIsLeftAsItWas() {
        ToolsListObserver o = new ToolsListObserver(catalogue, null, "3", 1 << 20);
        o.head(head(200, "application/json; charset=utf-8"));
        byte[] all = PAGE.getBytes(StandardCharsets.UTF_8);
        ByteBuf first = Unpooled.wrappedBuffer(all, 0, 20);
        o.content(first, false);
        assertThat(catalogue.listSeen()).isFalse();
        o.content(Unpooled.wrappedBuffer(all, 20, all.length - 20), true);

        assertThat(first.readerIndex()).isZero();
        assertThat(catalogue.isReadOnly("search_docs")).isTrue();
        assertThat(catalogue.isIdempotent("set_flag")).isTrue();
    }

    @Test
    void anSseAnswerFeedsTheCatalogueWithTheResponseForItsRequestAsSoonAsItCame() {
        ToolsListObserver o = new ToolsListObserver(catalogue, null, "3", 1 << 20);
        o.head(head(200, "text/event-stream"));
        String stream = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n"
                + "event: message\ndata: " + PAGE + "\n\n";
        byte[] all = stream.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < all.length; i += 9) {
            o.content(Unpooled.wrappedBuffer(all, i, Math.min(9, all.length - i)), false);
        }
        assertThat(catalogue.isReadOnly("search_docs")).as("before the stream ended").isTrue();
    }

    @Test
    void anErrorAnAnswerTooLargeOrAnotherRequestsResponseChangesNothing() {
        ToolsListObserver error = new ToolsListObserver(catalogue, null, "3", 1 << 20);
        error.head(head(500, "application/json"));
        error.content(Unpooled.wrappedBuffer(PAGE.getBytes(StandardCharsets.UTF_8)), true);

        ToolsListObserver small = new ToolsListObserver(catalogue, null, "3", 16);
        small.head(head(200, "application/json"));
        small.content(Unpooled.wrappedBuffer(PAGE.getBytes(StandardCharsets.UTF_8)), true);

        ToolsListObserver other = new ToolsListObserver(catalogue, null, "4", 1 << 20);
        other.head(head(200, "text/event-stream"));
        other.content(Unpooled.wrappedBuffer(("data: " + PAGE + "\n\n").getBytes(StandardCharsets.UTF_8)), true);

        assertThat(catalogue.listSeen()).isFalse();
    }

    private static HttpResponse head(int status, String type) {
        HttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status));
        r.headers().set("Content-Type", type);
        return r;
    }
}
