package dev.idemproxy.core.call;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** An answer kept whole: copied as it comes, each piece released, bounded, given back as one content. */
class HeldAnswerTest {
    private final HeldAnswer held = new HeldAnswer(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK), null, 10);

    @Test
    void piecesAreCopiedAndReleasedUntilTheLastAndGivenBackWhole() {
        HttpContent first = content("abc", false);
        LastHttpContent last = (LastHttpContent) content("def", true);
        last.trailingHeaders().set("x-t", "1");

        assertThat(held.add(first)).isTrue();
        assertThat(first.refCnt()).isZero();
        assertThat(held.complete()).isFalse();
        assertThat(held.add(last)).isTrue();
        assertThat(held.complete()).isTrue();
        assertThat(new String(held.body(), StandardCharsets.UTF_8)).isEqualTo("abcdef");
        LastHttpContent whole = (LastHttpContent) held.asContent(UnpooledByteBufAllocator.DEFAULT, true);
        assertThat(whole.content().toString(StandardCharsets.UTF_8)).isEqualTo("abcdef");
        assertThat(whole.trailingHeaders().get("x-t")).isEqualTo("1");
        whole.release();
    }

    @Test
    void aPiecePastTheLimitIsRefusedAndLeftToTheCaller() {
        assertThat(held.add(content("0123456", false))).isTrue();
        HttpContent over = content("7890", false);

        assertThat(held.add(over)).isFalse();
        assertThat(over.refCnt()).as("not released: the caller passes it on or releases it").isEqualTo(1);
        assertThat(new String(held.body(), StandardCharsets.UTF_8)).isEqualTo("0123456");
        HttpContent soFar = held.asContent(UnpooledByteBufAllocator.DEFAULT, false);
        assertThat(soFar).isNotInstanceOf(LastHttpContent.class);
        soFar.release();
        over.release();
    }

    private static HttpContent content(String s, boolean last) {
        var b = Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
        return last ? new DefaultLastHttpContent(b) : new DefaultHttpContent(b);
    }
}
