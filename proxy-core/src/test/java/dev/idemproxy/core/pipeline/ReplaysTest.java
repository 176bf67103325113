package dev.idemproxy.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idemproxy.core.call.CallIdentity;
import dev.idemproxy.core.call.Replays;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.testing.LeakDetection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A replay carries its stored headers as encoded lines; on the wire it must be the same bytes as
 * the stored headers copied into a Netty header map and encoded by Netty's encoder, which is how
 * replays were built before (and how {@link #mapReplay} still builds the reference here).
 */
@ExtendWith(LeakDetection.class)
class ReplaysTest {
    private static final String[] NAMES = {
        "Content-Type", "Date", "Server", "ETag", "Cache-Control", "Set-Cookie", "Location", "X-Request-Id", "Vary",
        "content-length", "CONTENT-LENGTH", "Idempotent-Replayed", "x-call-id", "X-ATTEMPTS", "X-Custom_Header!#$%&'*+.^`|~",
    };

    @Test
    void aReplayIsTheSameBytesAsTheHeaderMapWouldGive() {
        Random rnd = new Random(7);
        for (int i = 0; i < 2_000; i++) {
            List<StoredHeader> headers = new ArrayList<>();
            int n = rnd.nextInt(12);
            for (int j = 0; j < n; j++) {
                headers.add(new StoredHeader(NAMES[rnd.nextInt(NAMES.length)], value(rnd)));
            }
            byte[] body = new byte[rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(rnd.nextBoolean() ? 100 : 5_000)];
            rnd.nextBytes(body);
            int status = new int[] {200, 201, 202, 204, 400, 404, 409, 422, 500}[rnd.nextInt(9)];
            StoredResponse stored = new StoredResponse(status, headers, body);
            String callId = Long.toHexString(rnd.nextLong());
            int attempts = 1 + rnd.nextInt(5);
            byte[] expected = encodeWithNetty(mapReplay(stored, callId, attempts));
            // twice: the second replay uses the lines kept in the stored response
            for (int k = 0; k < 2; k++) {
                assertThat(new String(encodeWithServerCodec(Replays.response(ByteBufAllocator.DEFAULT, stored, callId, attempts, false)),
                        StandardCharsets.ISO_8859_1))
                        .as("case %d, %s", i, headers)
                        .isEqualTo(new String(expected, StandardCharsets.ISO_8859_1));
            }
        }
    }

    @Test
    void handlersSeeOnlyThePerReplayHeaders() {
        StoredResponse stored = new StoredResponse(201, List.of(new StoredHeader("Content-Type", "application/json"),
                new StoredHeader("Content-Length", "99")), "{}".getBytes(StandardCharsets.UTF_8));
        FullHttpResponse r = Replays.response(ByteBufAllocator.DEFAULT, stored, "c1", 2, false);
        try {
            assertThat(r.status().code()).isEqualTo(201);
            assertThat(r.headers().get(HttpHeaderNames.CONTENT_LENGTH)).isEqualTo("2");
            assertThat(r.headers().get(CallIdentity.IDEMPOTENT_REPLAYED)).isEqualTo("true");
            assertThat(r.headers().get(CallIdentity.X_CALL_ID)).isEqualTo("c1");
            assertThat(r.headers().get(CallIdentity.X_ATTEMPTS)).isEqualTo("2");
            assertThat(r.headers().names()).hasSize(4);
            assertThat(r.content().toString(StandardCharsets.UTF_8)).isEqualTo("{}");
        } finally {
            r.release();
        }
        assertThat(new String(Replays.headerLines(stored, false).bytes(), StandardCharsets.US_ASCII))
                .isEqualTo("Content-Type: application/json\r\nContent-Length: 2\r\n");
    }

    @Test
    void aHeadReplayKeepsTheStoredContentLengthAndSendsNoBody() {
        // A HEAD's record: the upstream's Content-Length is the length a GET's body would have had.
        StoredResponse head = new StoredResponse(200, List.of(new StoredHeader("Content-Type", "text/html"),
                new StoredHeader("Content-Length", "310")), new byte[0]);
        assertThat(new String(encodeWithServerCodec(Replays.response(ByteBufAllocator.DEFAULT, head, "c1", 1, true), "HEAD"),
                StandardCharsets.ISO_8859_1))
                .isEqualTo("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 310\r\n"
                        + "Idempotent-Replayed: true\r\nX-Call-Id: c1\r\nX-Attempts: 1\r\n\r\n");
        StoredResponse without = new StoredResponse(200, List.of(new StoredHeader("Content-Type", "text/html")), new byte[0]);
        assertThat(new String(encodeWithServerCodec(Replays.response(ByteBufAllocator.DEFAULT, without, "c1", 1, true), "HEAD"),
                StandardCharsets.ISO_8859_1).toLowerCase(java.util.Locale.ROOT))
                .doesNotContain("content-length");
    }

    @Test
    void a304KeepsItsStoredContentLengthAndGetsNoneAdded() {
        StoredResponse withLength = new StoredResponse(304, List.of(new StoredHeader("ETag", "\"v1\""),
                new StoredHeader("Content-Length", "1234")), new byte[0]);
        assertThat(new String(encodeWithServerCodec(Replays.response(ByteBufAllocator.DEFAULT, withLength, "c1", 1, false)),
                StandardCharsets.ISO_8859_1))
                .isEqualTo("HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\nContent-Length: 1234\r\n"
                        + "Idempotent-Replayed: true\r\nX-Call-Id: c1\r\nX-Attempts: 1\r\n\r\n");
        StoredResponse without = new StoredResponse(304, List.of(new StoredHeader("ETag", "\"v1\"")), new byte[0]);
        assertThat(new String(encodeWithServerCodec(Replays.response(ByteBufAllocator.DEFAULT, without, "c1", 1, false)),
                StandardCharsets.ISO_8859_1).toLowerCase(java.util.Locale.ROOT))
                .doesNotContain("content-length");
    }

    @Test
    void theLinesAreEncodedOncePerStoredResponse() {
        StoredResponse stored = new StoredResponse(200, List.of(new StoredHeader("A", "b")), new byte[0]);
        FullHttpResponse first = Replays.response(ByteBufAllocator.DEFAULT, stored, "c", 1, false);
        FullHttpResponse second = Replays.response(ByteBufAllocator.DEFAULT, stored, "c", 1, false);
        assertThat(((Replays.ReplayHeaders) second.headers()).storedLines())
                .isSameAs(((Replays.ReplayHeaders) first.headers()).storedLines());
        first.release();
        second.release();
    }

    @Test
    void aDamagedStoredHeaderIsRefusedLikeNettysHeaderMapRefusesIt() {
        for (StoredHeader bad : List.of(new StoredHeader("Bad Name", "v"), new StoredHeader("", "v"),
                new StoredHeader("X-Split", "a\r\nSet-Cookie: evil=1"), new StoredHeader("X-Nul", "a\0b"),
                new StoredHeader("X-Pad", " padded"))) {
            StoredResponse stored = new StoredResponse(200, List.of(bad), new byte[0]);
            assertThatThrownBy(() -> Replays.response(ByteBufAllocator.DEFAULT, stored, "c", 1, false))
                    .as("%s", bad).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> mapReplay(stored, "c", 1).release())
                    .as("the header map refuses %s too", bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    private static String value(Random rnd) {
        StringBuilder b = new StringBuilder();
        int len = rnd.nextInt(40);
        for (int i = 0; i < len; i++) {
            int kind = rnd.nextInt(20);
            char c = kind == 0 ? (char) (0x80 + rnd.nextInt(0x80)) : kind == 1 ? '\t' : kind == 2 ? ' ' : (char) (0x21 + rnd.nextInt(0x5e));
            b.append(c);
        }
        return b.toString().strip();
    }

    /**
     * The replay as it was built before stored lines, every header through Netty's map: the first
     * stored Content-Length (in any case) stays where it was and as it was spelt, with the body's
     * length; later ones are dropped; with none, one goes after the stored headers. Netty's
     * encoder then treats 1xx, 204 and 205 as it does any response.
     */
    private static FullHttpResponse mapReplay(StoredResponse stored, String callId, int attempts) {
        ByteBuf body = Unpooled.wrappedBuffer(stored.body());
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(stored.status()), body);
        boolean length = false;
        boolean inPlace = stored.status() >= 200 && stored.status() != 204 && stored.status() != 205;
        try {
            for (StoredHeader h : stored.headers()) {
                if (HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(h.name())) {
                    if (!inPlace) {
                        continue;  // the encoder drops it (1xx, 204) or sets it to 0 (205)
                    }
                    if (!length) {
                        r.headers().add(h.name(), Integer.toString(stored.bodyLength()));
                        length = true;
                    }
                } else {
                    r.headers().add(h.name(), h.value());
                }
            }
        } catch (IllegalArgumentException e) {
            r.release();
            throw e;
        }
        if (!length) {
            r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, stored.bodyLength());
        }
        r.headers().set(CallIdentity.IDEMPOTENT_REPLAYED, "true");
        r.headers().set(CallIdentity.X_CALL_ID, callId);
        r.headers().setInt(CallIdentity.X_ATTEMPTS, attempts);
        return r;
    }

    private static byte[] encodeWithNetty(FullHttpResponse r) {
        return drain(new EmbeddedChannel(new HttpResponseEncoder()), r);
    }

    /** Through the client codec, after a GET so its encoder has the request's method. */
    private static byte[] encodeWithServerCodec(FullHttpResponse r) {
        return encodeWithServerCodec(r, "POST");
    }

    private static byte[] encodeWithServerCodec(FullHttpResponse r, String method) {
        EmbeddedChannel ch = new EmbeddedChannel(new ServerCodec(4096, 8192));
        ch.writeInbound(Unpooled.copiedBuffer(method + " /x HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n", StandardCharsets.US_ASCII));
        Object in;
        while ((in = ch.readInbound()) != null) {
            io.netty.util.ReferenceCountUtil.release(in);
        }
        return drain(ch, r);
    }

    private static byte[] drain(EmbeddedChannel ch, FullHttpResponse r) {
        ch.writeOutbound(r);
        ByteBuf all = Unpooled.buffer();
        ByteBuf b;
        while ((b = ch.readOutbound()) != null) {
            all.writeBytes(b);
            b.release();
        }
        ch.finishAndReleaseAll();
        byte[] out = new byte[all.readableBytes()];
        all.readBytes(out);
        return out;
    }
}
