package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.call.Replays;
import dev.idemproxy.core.util.ProxyHeaders;
import io.netty.buffer.ByteBuf;
import io.netty.channel.CombinedChannelDuplexHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The client-side HTTP/1.1 codec. Like Netty's {@code HttpServerCodec}, with one difference that
 * matters for a proxy: a request carrying both {@code Transfer-Encoding: chunked} and
 * {@code Content-Length} is refused (an invalid message, answered 400 and closed) instead of
 * having its Content-Length dropped, so no smuggled second request can reach an upstream that
 * reads the header differently. Conflicting or duplicate Content-Lengths are refused too.
 * A request read whole (no body, or the whole body in the read that brought the head) is handed
 * on as one {@code FullHttpRequest}, so it passes the pipeline once instead of twice; a larger
 * body streams as contents after its head, as with Netty's codec.
 * Its encoder also writes a replay's stored header lines, which a replay carries encoded
 * ({@link Replays}). Its decoder fires {@link RequestStarted} when the first byte of a request
 * arrives, before anything of it is decoded: the head timeout runs from there
 * ({@link FrontTimeoutHandler}).
 * Not thread-safe: one instance per channel.
 */
final class ServerCodec extends CombinedChannelDuplexHandler<ServerCodec.StrictRequestDecoder, ServerCodec.ResponseEncoder> {
    /** Set as the decoder failure of a request that carried both framing headers. */
    static final class AmbiguousFramingException extends IllegalArgumentException {
        AmbiguousFramingException() {
            super("Content-Length together with Transfer-Encoding");
        }
    }

    /**
     * A user event: bytes of a new request arrived (the first ones after the previous request
     * ended, or on a new connection). Fired before any message the same bytes decode into.
     */
    static final class RequestStarted {
        static final RequestStarted INSTANCE = new RequestStarted();

        private RequestStarted() {}
    }

    private final ArrayDeque<HttpMethod> methods = new ArrayDeque<>();

    ServerCodec(int maxInitialLine, int maxHeaderSize) {
        HttpDecoderConfig cfg = new HttpDecoderConfig()
                .setMaxInitialLineLength(maxInitialLine)
                .setMaxHeaderSize(maxHeaderSize)
                .setMaxChunkSize(64 * 1024)
                .setAllowDuplicateContentLengths(false)
                .setStrictLineParsing(true)
                .setHeadersFactory(ProxyHeaders.HEADERS)
                .setTrailersFactory(ProxyHeaders.TRAILERS);
        init(new StrictRequestDecoder(cfg), new ResponseEncoder());
    }

    /**
     * Request header names a proxied call often carries, spelt as clients commonly spell them,
     * besides those Netty's decoder shares already (Host, Accept, Connection, Content-Type,
     * Content-Length): a name read off the wire that is exactly one of these is that one, not a
     * copy per request. Any other spelling is kept as it came.
     */
    private static final AsciiString[] SHARED_NAMES = names("Idempotency-Key", "idempotency-key", "User-Agent", "user-agent",
            "Accept-Encoding", "accept-encoding", "Authorization", "authorization", "X-Request-Id", "x-request-id",
            "Mcp-Session-Id", "mcp-session-id", "MCP-Protocol-Version", "mcp-protocol-version", "content-type",
            "content-length", "host", "accept");

    private static AsciiString[] names(String... names) {
        AsciiString[] a = new AsciiString[names.length];
        for (int i = 0; i < names.length; i++) {
            a[i] = AsciiString.cached(names[i]);
        }
        return a;
    }

    final class StrictRequestDecoder extends HttpRequestDecoder {
        /** Bytes of a request arrived and its last part (or a failure) has not been decoded yet. */
        private boolean inRequest;

        StrictRequestDecoder(HttpDecoderConfig cfg) {
            super(cfg);
        }

        @Override
        protected AsciiString splitHeaderName(byte[] sb, int start, int length) {
            for (AsciiString name : SHARED_NAMES) {
                if (name.length() == length && spells(name, sb, start)) {
                    return name;
                }
            }
            return super.splitHeaderName(sb, start, length);
        }

        @Override
        protected void handleTransferEncodingChunkedWithContentLength(HttpMessage message) {
            throw new AmbiguousFramingException();
        }

        @Override
        protected void decode(io.netty.channel.ChannelHandlerContext ctx, io.netty.buffer.ByteBuf buffer, List<Object> out)
                throws Exception {
            if (!inRequest && buffer.isReadable()) {
                // Each call starts with nothing decoded pending (ByteToMessageDecoder passes those
                // on first), so the event goes ahead of every message of this request.
                inRequest = true;
                ctx.fireUserEventTriggered(RequestStarted.INSTANCE);
            }
            int before = out.size();
            super.decode(ctx, buffer, out);
            // The body may be here already: decode on while that makes progress and yields nothing yet
            // (a chunk-size line, say); the first content ends it, joined below if it is the last.
            while (out.size() == before + 1 && isStreamedHead(out.get(before)) && buffer.isReadable()) {
                int readable = buffer.readableBytes();
                super.decode(ctx, buffer, out);
                if (out.size() == before + 1 && buffer.readableBytes() == readable) {
                    break;
                }
            }
            if (out.size() == before + 2 && isStreamedHead(out.get(before)) && out.get(before + 1) instanceof LastHttpContent) {
                LastHttpContent last = (LastHttpContent) out.get(before + 1);
                if (last.decoderResult().isSuccess()) {
                    HttpRequest head = (HttpRequest) out.get(before);
                    out.set(before, new DefaultFullHttpRequest(head.protocolVersion(), head.method(), head.uri(), last.content(),
                            head.headers(), last.trailingHeaders()));
                    out.remove(before + 1);
                }
            }
            for (int i = before; i < out.size(); i++) {
                Object o = out.get(i);
                if (o instanceof HttpRequest) {
                    methods.add(((HttpRequest) o).method());
                }
                if (o instanceof LastHttpContent || ((HttpObject) o).decoderResult().isFailure()) {
                    inRequest = false;  // ended, or failed (the decoder then discards what follows)
                }
            }
        }
    }

    private static boolean spells(AsciiString name, byte[] sb, int start) {
        for (int i = 0; i < name.length(); i++) {
            if (name.byteAt(i) != sb[start + i]) {
                return false;
            }
        }
        return true;
    }

    /** A request head decoded well, whose body (if any) follows as contents. */
    private static boolean isStreamedHead(Object o) {
        return o instanceof HttpRequest && !(o instanceof HttpContent) && ((HttpRequest) o).decoderResult().isSuccess();
    }

    final class ResponseEncoder extends HttpResponseEncoder {
        private HttpMethod method;

        @Override
        protected boolean isContentAlwaysEmpty(HttpResponse msg) {
            if (msg.status().codeClass() != HttpStatusClass.INFORMATIONAL) {
                method = methods.poll();
            }
            return HttpMethod.HEAD.equals(method) || super.isContentAlwaysEmpty(msg);
        }

        /** A replay's stored header lines go first, as they are (see {@link Replays}). */
        @Override
        protected void encodeHeaders(HttpHeaders headers, ByteBuf buf) {
            if (headers instanceof Replays.ReplayHeaders) {
                Replays.ReplayHeaders replay = (Replays.ReplayHeaders) headers;
                buf.writeBytes(replay.storedLines());
                if (replay.lengthInLines()) {
                    headers.remove(HttpHeaderNames.CONTENT_LENGTH);  // framing was decided already; written above
                }
            }
            super.encodeHeaders(headers, buf);
        }
    }
}
