package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.pipeline.LimitsPolicy.UnderscoreHeaders;
import dev.idemproxy.core.metrics.FrontRejection;
import dev.idemproxy.core.problem.Problem;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.util.Iterator;

/**
 * The rules a request head must keep to go past the guard ({@link RequestGuardHandler}): each
 * broken rule is a {@link Rejection}, the problem to answer and how it is counted. Pure
 * functions; {@link #underscores} may remove headers from the request it checks. This class is
 * stateless.
 */
final class HeadChecks {
    private HeadChecks() {}

    /** The first rule {@code req} breaks, or null when it may go on. */
    static Rejection check(HttpRequest req) {
        DecoderResult dr = req.decoderResult();
        if (dr.isFailure()) {
            Throwable cause = dr.cause();
            if (cause instanceof TooLongHttpHeaderException || cause instanceof TooLongHttpLineException) {
                return new Rejection(Problem.HEADER_TOO_LARGE, cause.getMessage(), FrontRejection.TOO_LARGE);
            }
            if (cause instanceof ServerCodec.AmbiguousFramingException) {
                return malformed(Problem.BAD_REQUEST, "Content-Length together with Transfer-Encoding is refused");
            }
            return malformed(Problem.BAD_REQUEST, "malformed request: " + cause.getMessage());
        }
        HttpVersion version = req.protocolVersion();
        if (!version.equals(HttpVersion.HTTP_1_1) && !version.equals(HttpVersion.HTTP_1_0)) {
            // The decoder takes any HTTP/d.d; framing and keep-alive rules of another version are
            // not ours to guess, and forwarding it would hand the upstream a version we never spoke.
            return malformed(Problem.HTTP_VERSION_NOT_SUPPORTED,
                    "HTTP version " + version.text() + " is unsupported (expected: HTTP/1.1 or HTTP/1.0)");
        }
        if (!isVisibleAscii(req.uri())) {
            return malformed(Problem.BAD_REQUEST, "the request target is not visible US-ASCII");
        }
        if (HttpMethod.CONNECT.equals(req.method())) {
            return new Rejection(Problem.METHOD_NOT_SUPPORTED, "CONNECT tunnels are not supported; send plain http:// requests",
                    null);
        }
        int hosts = count(req.headers(), HttpHeaderNames.HOST);
        if (hosts > 1 || (hosts == 0 && req.protocolVersion().equals(HttpVersion.HTTP_1_1))) {
            return malformed(Problem.BAD_REQUEST, hosts == 0 ? "missing Host header" : "more than one Host header");
        }
        String host = req.headers().get(HttpHeaderNames.HOST);
        if (host != null && !isAuthority(host)) {
            return malformed(Problem.BAD_REQUEST, "the Host header is not a host[:port]");
        }
        String coding = unsupportedCoding(req.headers());
        if (coding != null) {
            return malformed(Problem.TRANSFER_CODING_NOT_IMPLEMENTED,
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

    private static Rejection malformed(Problem problem, String detail) {
        return new Rejection(problem, detail, FrontRejection.MALFORMED);
    }

    /** @param reason how the refusal is counted; null for one that is not the client's fault (CONNECT) */
    record Rejection(Problem problem, String detail, FrontRejection reason) {}

    /** The underscore rule: null to go on (names with {@code _} dropped, or kept), or the refusal. */
    static Rejection underscores(HttpHeaders headers, UnderscoreHeaders underscores) {
        if (underscores == UnderscoreHeaders.FORWARD) {
            return null;
        }
        CharSequence name = UnderscoreNames.first(headers);
        if (name == null) {
            return null;
        }
        if (underscores == UnderscoreHeaders.DROP) {
            UnderscoreNames.drop(headers);
            return null;
        }
        return new Rejection(Problem.BAD_REQUEST, "header name '" + name + "' contains '_' (expected: names without '_', "
                + "as limits.underscoreHeaders is reject)", FrontRejection.MALFORMED);
    }
}
