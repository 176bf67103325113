package dev.idemproxy.core.pipeline;

import static dev.idemproxy.core.util.ProxyHeaders.X_FORWARDED_FOR;
import static dev.idemproxy.core.util.ProxyHeaders.X_FORWARDED_HOST;
import static dev.idemproxy.core.util.ProxyHeaders.X_FORWARDED_PROTO;

import dev.idemproxy.core.route.Route;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import java.util.Iterator;

/**
 * Turns a client request head into the upstream's and an upstream response head into the
 * client's, in place: hop-by-hop headers dropped (RFC 9110 §7.6.1, plus those the Connection
 * header names), body framing re-declared for the next leg, X-Forwarded-* added.
 * Pure functions over Netty header objects. This class is stateless.
 */
final class HeaderRewrite {
    private static final AsciiString[] HOP_BY_HOP = {
        HttpHeaderNames.CONNECTION, HttpHeaderNames.KEEP_ALIVE, AsciiString.cached("proxy-connection"),
        HttpHeaderNames.PROXY_AUTHENTICATE, HttpHeaderNames.PROXY_AUTHORIZATION, HttpHeaderNames.TE,
        HttpHeaderNames.TRAILER, HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderNames.UPGRADE,
    };

    private HeaderRewrite() {}

    /**
     * Rewrites {@code req} for the upstream: origin-form target under the route's base path,
     * Host of the upstream, hop-by-hop headers gone, X-Forwarded-For appended to, X-Forwarded-Proto
     * and -Host set from what the proxy saw (the client's replaced; -Host removed when the client
     * named no host, as an HTTP/1.0 request may).
     *
     * @param clientScheme how the client spoke to the proxy: {@code https} inside an interception
     */
    static void toUpstream(HttpRequest req, Route route, String pathAndQuery, String originalHost, String clientIp,
            String clientScheme) {
        toUpstream(req, route.upstreamBasePath(), route.upstreamAuthority(), pathAndQuery, originalHost, clientIp,
                clientScheme);
    }

    /** As above, with the route's base path and authority already derived (a caller may keep them per route). */
    static void toUpstream(HttpRequest req, String basePath, String authority, String pathAndQuery, String originalHost,
            String clientIp, String clientScheme) {
        HttpHeaders h = req.headers();
        boolean chunked = HttpUtil.isTransferEncodingChunked(req);
        dropHopByHop(h);
        if (chunked) {
            h.remove(HttpHeaderNames.CONTENT_LENGTH);
            h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        }
        req.setProtocolVersion(HttpVersion.HTTP_1_1);
        req.setUri(basePath.isEmpty() ? pathAndQuery : basePath + pathAndQuery);
        h.set(HttpHeaderNames.HOST, authority);
        h.set(X_FORWARDED_FOR, forwardedFor(h, clientIp));
        // What the proxy saw, never what the client claims: a client's own -Proto or -Host would
        // reach an upstream that builds URLs or trusts the scheme from them.
        h.set(X_FORWARDED_PROTO, clientScheme);
        if (originalHost != null) {
            h.set(X_FORWARDED_HOST, originalHost);
        } else {
            h.remove(X_FORWARDED_HOST);
        }
    }

    /**
     * The client's X-Forwarded-For chain, every line of it in order, with {@code clientIp}
     * appended; {@code clientIp} alone when there is none. Blank lines are skipped.
     */
    static String forwardedFor(HttpHeaders h, String clientIp) {
        String first = h.get(X_FORWARDED_FOR);
        if (first == null) {
            return clientIp;
        }
        StringBuilder chain = null;
        for (String value : h.getAll(X_FORWARDED_FOR)) {  // in order; the value iterator is not
            String line = value.trim();
            if (line.isEmpty()) {
                continue;
            }
            chain = chain == null ? new StringBuilder(line.length() + clientIp.length() + 16) : chain.append(", ");
            chain.append(line);
        }
        return chain == null ? clientIp : chain.append(", ").append(clientIp).toString();
    }

    /**
     * Rewrites an upstream response head for the client that sent {@code clientVersion} /
     * {@code method}. Returns true when the client connection must close after this response
     * (a body with no length for an HTTP/1.0 client).
     */
    static boolean toClient(HttpResponse resp, HttpMethod method, HttpVersion clientVersion, boolean closeClient) {
        HttpHeaders h = resp.headers();
        boolean chunked = HttpUtil.isTransferEncodingChunked(resp);
        dropHopByHop(h);
        resp.setProtocolVersion(HttpVersion.HTTP_1_1);
        boolean close = closeClient;
        if (hasBody(resp, method) && !h.contains(HttpHeaderNames.CONTENT_LENGTH)) {
            if (clientVersion.equals(HttpVersion.HTTP_1_1)) {
                h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
            } else {
                close = true;
            }
        } else if (chunked && HttpMethod.HEAD.equals(method)) {
            h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        }
        if (close) {
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return close;
    }

    static boolean hasBody(HttpResponse resp, HttpMethod method) {
        int code = resp.status().code();
        return !HttpMethod.HEAD.equals(method) && code >= 200 && code != 204 && code != 304;
    }

    static void dropHopByHop(HttpHeaders h) {
        if (h.contains(HttpHeaderNames.CONNECTION)) {
            Iterator<String> values = h.valueStringIterator(HttpHeaderNames.CONNECTION);
            while (values.hasNext()) {
                String value = values.next();
                if (isPlainConnectionOption(value)) {
                    continue;  // keep-alive / close name no other header to drop (Keep-Alive is dropped below)
                }
                for (String token : value.split(",")) {
                    String t = token.trim();
                    if (!t.isEmpty()) {
                        h.remove(t);
                    }
                }
            }
        }
        for (AsciiString name : HOP_BY_HOP) {
            h.remove(name);
        }
    }

    private static boolean isPlainConnectionOption(String value) {
        return value.equalsIgnoreCase("keep-alive") || value.equalsIgnoreCase("close");
    }
}
