package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.ProxyHeaders;
import dev.idemproxy.core.call.CallIdentity;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValidationUtil;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import java.util.List;
import java.util.function.Function;

/**
 * Builds the replay of a stored response: same status, headers and bytes, marked replayed.
 *
 * <p>The stored headers are not copied into a Netty header map (and checked, hashed and encoded
 * again) on every replay: they are encoded once per stored response into HTTP/1.1 header lines,
 * under the same rules Netty's header map applies (names are tokens, values valid field values,
 * each character written as its low byte like Netty's encoder does), and the client's
 * encoder writes those lines ahead of the headers that differ per replay (Content-Length,
 * Idempotent-Replayed, X-Call-Id, X-Attempts, and whatever handlers after this one add). The
 * bytes on the wire are the same as with the map: stored headers in order, those four last.
 * Stateless.
 */
final class Replays {
    /** Headers set per replay; a stored header of the same name is left out, as {@code set} would replace it. */
    private static final AsciiString[] SET_PER_REPLAY = {
        HttpHeaderNames.CONTENT_LENGTH, CallIdentity.IDEMPOTENT_REPLAYED, CallIdentity.X_CALL_ID, CallIdentity.X_ATTEMPTS,
    };
    private static final byte[] COLON_SP = {':', ' '};
    private static final byte[] CRLF = {'\r', '\n'};
    private static final Function<StoredResponse, byte[]> HEADER_LINES = Replays::headerLines;

    private Replays() {}

    static FullHttpResponse response(ByteBufAllocator alloc, StoredResponse stored, String callId, int attempts) {
        ReplayHeaders h = new ReplayHeaders(stored.derived(HEADER_LINES));  // first: it may refuse a damaged header
        ByteBuf body = alloc.buffer(stored.bodyLength());
        body.writeBytes(stored.bodyBuffer());
        h.setInt(HttpHeaderNames.CONTENT_LENGTH, stored.bodyLength());
        h.set(CallIdentity.IDEMPOTENT_REPLAYED, "true");
        h.set(CallIdentity.X_CALL_ID, callId);
        h.setInt(CallIdentity.X_ATTEMPTS, attempts);
        return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(stored.status()), body, h,
                DefaultHttpHeadersFactory.trailersFactory().newHeaders());
    }

    /**
     * The stored headers as "Name: value\r\n" lines in their stored order, without those set per
     * replay. A name that is not a token or a value that is not a valid field value (possible only
     * in a damaged store) is refused, as Netty's header map refuses it.
     */
    static byte[] headerLines(StoredResponse stored) {
        List<StoredHeader> headers = stored.headers();
        int size = 0;
        for (StoredHeader h : headers) {
            if (!setPerReplay(h.name())) {
                size += h.name().length() + h.value().length() + 4;
            }
        }
        byte[] out = new byte[size];
        int at = 0;
        for (StoredHeader h : headers) {
            String name = h.name();
            if (setPerReplay(name)) {
                continue;
            }
            String value = h.value();
            if (!ProxyHeaders.isToken(name)) {
                throw new IllegalArgumentException("stored header name is not a token: '" + name + "'");
            }
            if (HttpHeaderValidationUtil.validateValidHeaderValue(value) != -1) {
                throw new IllegalArgumentException("stored value of header '" + name + "' is not a valid field value");
            }
            at = ascii(name, out, at);
            System.arraycopy(COLON_SP, 0, out, at, 2);
            at = ascii(value, out, at + 2);
            System.arraycopy(CRLF, 0, out, at, 2);
            at += 2;
        }
        return out;
    }

    private static boolean setPerReplay(String name) {
        for (AsciiString n : SET_PER_REPLAY) {
            if (n.contentEqualsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    private static int ascii(String s, byte[] out, int at) {
        for (int i = 0; i < s.length(); i++) {
            out[at++] = (byte) s.charAt(i);
        }
        return at;
    }

    /**
     * The per-replay headers of a replay, carrying the stored header lines the encoder writes
     * before them ({@link ServerCodec}). Only this class and the encoder know of the lines; a
     * handler reading the headers sees the per-replay ones.
     */
    static final class ReplayHeaders extends DefaultHttpHeaders {
        private final byte[] storedLines;

        ReplayHeaders(byte[] storedLines) {
            super(true, ProxyHeaders.NAME_CHECK);
            this.storedLines = storedLines;
        }

        byte[] storedLines() {
            return storedLines;
        }
    }
}
