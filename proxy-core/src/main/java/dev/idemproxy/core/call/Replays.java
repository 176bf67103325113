package dev.idemproxy.core.call;

import dev.idemproxy.core.util.ProxyHeaders;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
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
 * encoder writes those lines ahead of the headers that differ per replay (Idempotent-Replayed,
 * X-Call-Id, X-Attempts, and whatever handlers after this one add). A stored Content-Length is
 * written in its stored place and spelling, with the stored body's length; a response stored
 * without one (its upstream sent it chunked, or an older version stored it) gets one after the
 * stored lines. The header map carries Content-Length either way, for the handlers that read it;
 * the encoder leaves it out of the map's lines when the stored lines hold it. Stateless.
 */
public final class Replays {
    /** Headers set per replay; a stored header of the same name is left out, as {@code set} would replace it. */
    private static final AsciiString[] SET_PER_REPLAY = {
        HttpHeaderNames.CONTENT_LENGTH, CallIdentity.IDEMPOTENT_REPLAYED, CallIdentity.X_CALL_ID, CallIdentity.X_ATTEMPTS,
    };
    private static final int NOT_MODIFIED = 304;
    private static final byte[] COLON_SP = {':', ' '};
    private static final byte[] CRLF = {'\r', '\n'};
    private static final Function<StoredResponse, StoredLines> HEADER_LINES = r -> headerLines(r, false);
    private static final Function<StoredResponse, StoredLines> HEAD_LINES = r -> headerLines(r, true);

    /** A stored response's header lines, and whether they hold its Content-Length line. */
    public record StoredLines(byte[] bytes, boolean length) {}

    private Replays() {}

    /**
     * @param head whether the duplicate is a HEAD: its record is a HEAD's (a HEAD's fingerprint
     *             matches no other method's), stored without a body, and its Content-Length, when
     *             the upstream sent one, is that of the body a GET would have had (RFC 9110 §9.3.2):
     *             replayed as stored, none added, as for a 304
     */
    public static FullHttpResponse response(ByteBufAllocator alloc, StoredResponse stored, String callId, int attempts, boolean head) {
        ReplayHeaders h = new ReplayHeaders(stored.derived(head ? HEAD_LINES : HEADER_LINES));  // first: it may refuse a damaged header
        ByteBuf body = alloc.buffer(stored.bodyLength());
        body.writeBytes(stored.bodyBuffer());
        if (!head && stored.status() != NOT_MODIFIED) {
            h.set(HttpHeaderNames.CONTENT_LENGTH, ProxyHeaders.number(stored.bodyLength()));
        }
        h.set(CallIdentity.IDEMPOTENT_REPLAYED, "true");
        h.set(CallIdentity.X_CALL_ID, callId);
        h.set(CallIdentity.X_ATTEMPTS, ProxyHeaders.number(attempts));
        return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(stored.status()), body, h,
                ProxyHeaders.TRAILERS.newHeaders());
    }

    /**
     * The stored headers as "Name: value\r\n" lines in their stored order, without those set per
     * replay. A name that is not a token or a value that is not a valid field value (possible only
     * in a damaged store) is refused, as Netty's header map refuses it.
     */
    public static StoredLines headerLines(StoredResponse stored, boolean head) {
        List<StoredHeader> headers = stored.headers();
        String length = ProxyHeaders.number(stored.bodyLength());
        boolean inPlace = !head && framedByLength(stored.status());
        boolean asStored = head || stored.status() == NOT_MODIFIED;
        boolean lengthWritten = false;
        int size = 0;
        for (StoredHeader h : headers) {
            if (inPlace && isLength(h.name()) && !lengthWritten) {
                size += h.name().length() + length.length() + 4;
                lengthWritten = true;
            } else if (asStored && isLength(h.name())) {
                size += h.name().length() + h.value().length() + 4;
            } else if (!setPerReplay(h.name())) {
                size += h.name().length() + h.value().length() + 4;
            }
        }
        byte[] out = new byte[size];
        int at = 0;
        lengthWritten = false;
        for (StoredHeader h : headers) {
            String name = h.name();
            String value = h.value();
            if (inPlace && isLength(name)) {
                if (lengthWritten) {
                    continue;  // one Content-Length, whatever the store holds
                }
                lengthWritten = true;
                value = length;
            } else if (asStored && isLength(name)) {
                lengthWritten = true;  // a 304's or a HEAD's, as the upstream sent it
            } else if (setPerReplay(name)) {
                continue;
            }
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
        return new StoredLines(out, lengthWritten);
    }

    private static boolean isLength(String name) {
        return HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(name);
    }

    /**
     * Whether a response of this status carries a Content-Length as it is: Netty's encoder drops
     * it from 1xx and 204 responses and sets it to 0 on 205, and a replay of those keeps its
     * Content-Length in the header map for the encoder to treat the same way. A 304 has no body
     * and its Content-Length, when the upstream sent one, is the length of the representation it
     * stands for (RFC 9110 §8.6): it is replayed as stored, and none is added.
     */
    private static boolean framedByLength(int status) {
        return status >= 200 && status != 204 && status != 205 && status != NOT_MODIFIED;
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
     * before them ({@code pipeline.ServerCodec}). Only this class and the encoder know of the lines; a
     * handler reading the headers sees the per-replay ones.
     */
    public static final class ReplayHeaders extends DefaultHttpHeaders {
        private final StoredLines stored;

        ReplayHeaders(StoredLines stored) {
            super(true, ProxyHeaders.NAME_CHECK);
            this.stored = stored;
        }

        public byte[] storedLines() {
            return stored.bytes();
        }

        /** The stored lines hold the Content-Length line: the map's must not be written again. */
        public boolean lengthInLines() {
            return stored.length();
        }
    }
}
