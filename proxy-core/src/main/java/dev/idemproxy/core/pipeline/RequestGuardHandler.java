package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.problem.ProblemResponses;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.util.Iterator;

/**
 * Answers requests that must not go further: undecodable heads (400), header blocks or request
 * lines over the limits (431), ambiguous framing such as Content-Length with Transfer-Encoding
 * (400), an HTTP version other than 1.0 and 1.1 (505), a missing or repeated Host on HTTP/1.1
 * (400), and CONNECT (405). Every such answer closes the connection, because the rest of the
 * byte stream can no longer be trusted.
 *
 * <p>A body that fails to decode (a bad chunk size, chunk data overrunning its size, or the
 * connection ending before the body did) arrives as a content whose decoder result is a failure,
 * after the head has passed. It is not let through, so no handler downstream takes it for the
 * end of a complete request: the connection is answered 400 if no response to this request has
 * started yet, and closed either way, which also drops an upstream request under way unfinished.
 * From then on, writes from downstream are dropped: the guard's answer is the last word.
 * Ownership: a rejected message and everything after it is released here.
 * Not thread-safe: one instance per channel.
 */
final class RequestGuardHandler extends ChannelDuplexHandler {
    private boolean rejected;
    /** A final response to the current request has started, so a 400 can no longer be sent. */
    private boolean answered;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (rejected) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (!(msg instanceof HttpRequest)) {
            if (msg instanceof HttpContent && ((HttpContent) msg).decoderResult().isFailure()) {
                Throwable cause = ((HttpContent) msg).decoderResult().cause();
                ReferenceCountUtil.release(msg);
                reject(ctx, new Rejection(Problem.BAD_REQUEST, "malformed request body: " + cause.getMessage()));
                return;
            }
            ctx.fireChannelRead(msg);
            return;
        }
        HttpRequest req = (HttpRequest) msg;
        answered = false;
        Rejection r = check(req);
        if (r == null) {
            ctx.fireChannelRead(msg);
            return;
        }
        ReferenceCountUtil.release(msg);
        reject(ctx, r);
    }

    private void reject(ChannelHandlerContext ctx, Rejection r) {
        rejected = true;
        ctx.channel().config().setAutoRead(false);
        if (answered || !ctx.channel().isActive()) {
            ctx.close();
            return;
        }
        Answers.write(ctx, ProblemResponses.build(ctx.alloc(), r.problem, r.detail, null), true);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (rejected) {
            ReferenceCountUtil.release(msg);
            promise.setSuccess();
            return;
        }
        if (msg instanceof HttpResponse && ((HttpResponse) msg).status().codeClass() != HttpStatusClass.INFORMATIONAL) {
            answered = true;
        }
        ctx.write(msg, promise);
    }

    private static Rejection check(HttpRequest req) {
        DecoderResult dr = req.decoderResult();
        if (dr.isFailure()) {
            Throwable cause = dr.cause();
            if (cause instanceof TooLongHttpHeaderException) {
                return new Rejection(Problem.HEADER_TOO_LARGE, cause.getMessage());
            }
            if (cause instanceof TooLongHttpLineException) {
                return new Rejection(Problem.HEADER_TOO_LARGE, cause.getMessage());
            }
            if (cause instanceof ServerCodec.AmbiguousFramingException) {
                return new Rejection(Problem.BAD_REQUEST, "Content-Length together with Transfer-Encoding is refused");
            }
            return new Rejection(Problem.BAD_REQUEST, "malformed request: " + cause.getMessage());
        }
        HttpVersion version = req.protocolVersion();
        if (!version.equals(HttpVersion.HTTP_1_1) && !version.equals(HttpVersion.HTTP_1_0)) {
            // The decoder takes any HTTP/d.d; framing and keep-alive rules of another version are
            // not ours to guess, and forwarding it would hand the upstream a version we never spoke.
            return new Rejection(Problem.HTTP_VERSION_NOT_SUPPORTED,
                    "HTTP version " + version.text() + " is unsupported (expected: HTTP/1.1 or HTTP/1.0)");
        }
        if (!isVisibleAscii(req.uri())) {
            return new Rejection(Problem.BAD_REQUEST, "the request target is not visible US-ASCII");
        }
        if (HttpMethod.CONNECT.equals(req.method())) {
            return new Rejection(Problem.METHOD_NOT_SUPPORTED, "CONNECT tunnels are not supported; send plain http:// requests");
        }
        int hosts = count(req.headers(), HttpHeaderNames.HOST);
        if (hosts > 1 || (hosts == 0 && req.protocolVersion().equals(HttpVersion.HTTP_1_1))) {
            return new Rejection(Problem.BAD_REQUEST, hosts == 0 ? "missing Host header" : "more than one Host header");
        }
        String host = req.headers().get(HttpHeaderNames.HOST);
        if (host != null && !isAuthority(host)) {
            return new Rejection(Problem.BAD_REQUEST, "the Host header is not a host[:port]");
        }
        String coding = unsupportedCoding(req.headers());
        if (coding != null) {
            return new Rejection(Problem.TRANSFER_CODING_NOT_IMPLEMENTED,
                    "Transfer-Encoding '" + coding + "' is not supported (expected: chunked alone)");
        }
        return null;
    }

    /**
     * RFC 9110 §7.2: {@code Host = uri-host [ ":" port ]}, so only the characters of a reg-name,
     * an IP literal and a port; no space, no {@code /}, no {@code @} (a userinfo), nothing a
     * host-based route or the upstream's virtual host could read differently.
     */
    private static boolean isAuthority(String host) {
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "-._~!$&'()*+,;=:%[]".indexOf(c) >= 0;
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /**
     * The request's transfer codings other than a single {@code chunked}, or null: the proxy
     * re-frames a body in chunks of its own, so another coding (gzip, deflate…) would reach the
     * upstream stripped of its name, its bytes still coded.
     */
    private static String unsupportedCoding(HttpHeaders headers) {
        if (!headers.contains(HttpHeaderNames.TRANSFER_ENCODING)) {
            return null;
        }
        StringBuilder all = new StringBuilder();
        for (String line : headers.getAll(HttpHeaderNames.TRANSFER_ENCODING)) {
            all.append(all.length() == 0 ? "" : ", ").append(line);
        }
        String[] codings = all.toString().split(",");
        if (codings.length == 1 && codings[0].trim().equalsIgnoreCase("chunked")) {
            return null;
        }
        return all.toString().trim();
    }

    private static int count(HttpHeaders headers, CharSequence name) {
        int n = 0;
        for (Iterator<? extends CharSequence> it = headers.valueCharSequenceIterator(name); it.hasNext(); it.next()) {
            n++;
        }
        return n;
    }

    /**
     * RFC 9112 3.2: a request target is visible US-ASCII (RFC 3986). The decoder splits the
     * request line on whitespace only, so a NUL would be forwarded, and the upstream encoder
     * would rewrite other octets as UTF-8: both are refused instead.
     */
    private static boolean isVisibleAscii(String uri) {
        for (int i = 0; i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                return false;
            }
        }
        return true;
    }

    private static final class Rejection {
        final Problem problem;
        final String detail;

        Rejection(Problem problem, String detail) {
            this.problem = problem;
            this.detail = detail;
        }
    }
}
