package dev.idemproxy.core.forward;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * HTTP/1.1 response bytes for a channel whose HTTP codec is already gone: the {@code 200} that
 * opens a tunnel, and a whole problem response that ends one before it opened. This class is
 * stateless.
 */
final class RawResponses {
    private static final byte[] ESTABLISHED = "HTTP/1.1 200 Connection established\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private RawResponses() {}

    static ByteBuf established(ByteBufAllocator alloc) {
        return alloc.buffer(ESTABLISHED.length).writeBytes(ESTABLISHED);
    }

    /** {@code response} encoded with {@code Connection: close}; releases it. */
    static ByteBuf closing(ByteBufAllocator alloc, FullHttpResponse response) {
        try {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            StringBuilder head = new StringBuilder(256).append("HTTP/1.1 ").append(response.status().code()).append(' ')
                    .append(response.status().reasonPhrase()).append("\r\n");
            for (Map.Entry<String, String> h : response.headers()) {
                head.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n");
            }
            head.append("\r\n");
            byte[] bytes = head.toString().getBytes(StandardCharsets.ISO_8859_1);
            return alloc.buffer(bytes.length + response.content().readableBytes()).writeBytes(bytes)
                    .writeBytes(response.content(), response.content().readerIndex(), response.content().readableBytes());
        } finally {
            response.release();
        }
    }
}
