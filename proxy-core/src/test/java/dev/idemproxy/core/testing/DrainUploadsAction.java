package dev.idemproxy.core.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

/**
 * Consumes a request body of any size as it streams in, holding no more than the chunk in hand:
 * counts the bytes and a CRC32, then answers {@code 200 application/json}
 * {@code {"bytes":N,"crc32":"<8 lowercase hex digits>"}}. The recorded request has an empty body and
 * the real {@link RecordedRequest#bodyLength()}. Optionally pauses reading once (per request) after a
 * number of bytes, to put back-pressure on the sender. Thread-safe; {@link #pauses()} adds up over
 * every run. Built by {@link UpstreamAction#drainUploads}.
 */
public final class DrainUploadsAction extends UpstreamAction {

    private final long pauseAfterBytes;
    private final Duration pauseFor;
    private final AtomicLong pauses = new AtomicLong();

    DrainUploadsAction(long pauseAfterBytes, Duration pauseFor) {
        this.pauseAfterBytes = pauseAfterBytes;
        this.pauseFor = pauseFor;
    }

    /** How many times reading was paused for back-pressure, over all runs. */
    public long pauses() {
        return pauses.get();
    }

    /** A CRC32 value ({@link CRC32#getValue()}) spelled as in the response, for tests to compare with. */
    public static String crc32Hex(long crc32Value) {
        return String.format("%08x", crc32Value);
    }

    private static final class Upload {
        final CRC32 crc = new CRC32();
        long bytes;
        boolean paused;
    }

    @Override
    boolean streamsRequestBody() {
        return true;
    }

    @Override
    void onRequestHead(Exchange ex) {
        ex.actionState = new Upload();
    }

    @Override
    void onRequestContent(Exchange ex, ByteBuf content) {
        Upload up = (Upload) ex.actionState;
        up.bytes += content.readableBytes();
        for (ByteBuffer nio : content.nioBuffers()) {
            up.crc.update(nio);
        }
        if (pauseAfterBytes >= 0 && !up.paused && up.bytes >= pauseAfterBytes) {
            up.paused = true;
            pauses.incrementAndGet();
            Channel ch = ex.ctx().channel();
            ch.config().setAutoRead(false);
            ex.schedule(() -> ch.config().setAutoRead(true), pauseFor);
        }
    }

    @Override
    void respond(Exchange ex) {
        Upload up = (Upload) ex.actionState;
        String json = "{\"bytes\":" + up.bytes + ",\"crc32\":\"" + crc32Hex(up.crc.getValue()) + "\"}";
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.wrappedBuffer(json.getBytes(StandardCharsets.UTF_8)));
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
        HttpUtil.setContentLength(res, res.content().readableBytes());
        ex.finish(ex.writeHead(res));
    }
}
