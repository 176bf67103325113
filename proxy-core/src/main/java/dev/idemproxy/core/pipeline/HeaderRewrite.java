package dev.idemproxy.core.pipeline;

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
import java.util.Map;

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
    // Indexes into HOP_BY_HOP; scan sets bit (1 << index) for each name present.
    private static final int I_CONNECTION = 0;
    private static final int I_KEEP_ALIVE = 1;
    private static final int I_PROXY_CONNECTION = 2;
    private static final int I_PROXY_AUTHENTICATE = 3;
    private static final int I_PROXY_AUTHORIZATION = 4;
    private static final int I_TE = 5;
    private static final int I_TRAILER = 6;
    private static final int I_TRANSFER_ENCODING = 7;
    private static final int I_UPGRADE = 8;
    private static final int HOP_MASK = (1 << 9) - 1;
    private static final int TRANSFER_ENCODING = 1 << I_TRANSFER_ENCODING;
    // scan's bits for names that are not hop-by-hop.
    private static final int CONTENT_LENGTH = 1 << 9;
    private static final int FORWARDED_FOR = 1 << 10;
    private static final int FORWARDED_PROTO = 1 << 11;
    private static final int FORWARDED_HOST = 1 << 12;
    static final AsciiString X_FORWARDED_FOR = AsciiString.cached("x-forwarded-for");
    static final AsciiString X_FORWARDED_PROTO = AsciiString.cached("x-forwarded-proto");
    static final AsciiString X_FORWARDED_HOST = AsciiString.cached("x-forwarded-host");

    private HeaderRewrite() {}

    /**
     * Rewrites {@code req} for the upstream: origin-form target under the route's base path,
     * Host of the upstream, hop-by-hop headers gone, X-Forwarded-For/-Proto/-Host added.
     */
    static void toUpstream(HttpRequest req, Route route, String pathAndQuery, String originalHost, String clientIp) {
        toUpstream(req, route.upstreamBasePath(), route.upstreamAuthority(), pathAndQuery, originalHost, clientIp);
    }

    /** As above, with the route's base path and authority already derived (a caller may keep them per route). */
    static void toUpstream(HttpRequest req, String basePath, String authority, String pathAndQuery, String originalHost,
            String clientIp) {
        HttpHeaders h = req.headers();
        int seen = scan(h);
        boolean chunked = (seen & TRANSFER_ENCODING) != 0 && HttpUtil.isTransferEncodingChunked(req);
        seen = dropHopByHop(h, seen);
        if (chunked) {
            h.remove(HttpHeaderNames.CONTENT_LENGTH);
            h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        }
        req.setProtocolVersion(HttpVersion.HTTP_1_1);
        req.setUri(basePath.isEmpty() ? pathAndQuery : basePath + pathAndQuery);
        h.set(HttpHeaderNames.HOST, authority);
        // add, not set, for a name the scan did not find: set would first look for it to remove.
        if ((seen & FORWARDED_FOR) != 0) {
            String xff = h.get(X_FORWARDED_FOR);
            h.set(X_FORWARDED_FOR, xff == null || xff.isBlank() ? clientIp : xff + ", " + clientIp);
        } else {
            h.add(X_FORWARDED_FOR, clientIp);
        }
        put(h, X_FORWARDED_PROTO, "http", (seen & FORWARDED_PROTO) != 0);
        if (originalHost != null) {
            put(h, X_FORWARDED_HOST, originalHost, (seen & FORWARDED_HOST) != 0);
        }
    }

    /**
     * Rewrites an upstream response head for the client that sent {@code clientVersion} /
     * {@code method}. Returns true when the client connection must close after this response
     * (a body with no length for an HTTP/1.0 client).
     */
    static boolean toClient(HttpResponse resp, HttpMethod method, HttpVersion clientVersion, boolean closeClient) {
        HttpHeaders h = resp.headers();
        int seen = scan(h);
        boolean chunked = (seen & TRANSFER_ENCODING) != 0 && HttpUtil.isTransferEncodingChunked(resp);
        seen = dropHopByHop(h, seen);
        resp.setProtocolVersion(HttpVersion.HTTP_1_1);
        boolean close = closeClient;
        if (hasBody(resp, method) && (seen & CONTENT_LENGTH) == 0) {
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

    /**
     * Drops the hop-by-hop headers {@code seen} (from {@link #scan}) says are there, and returns
     * what is left of {@code seen}: scanned again when the Connection header named others.
     */
    private static int dropHopByHop(HttpHeaders h, int seen) {
        if ((seen & HOP_MASK) == 0) {
            return seen;
        }
        boolean named = false;
        if ((seen & (1 << I_CONNECTION)) != 0) {
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
                        named = true;
                    }
                }
            }
        }
        for (int i = 0; i < HOP_BY_HOP.length; i++) {
            if ((seen & (1 << i)) != 0) {
                h.remove(HOP_BY_HOP[i]);
            }
        }
        return named ? scan(h) : seen & ~HOP_MASK;
    }

    /**
     * One pass over the names: a bit per hop-by-hop header present (index as in HOP_BY_HOP), and
     * the other bits below. The rewrite then touches only names that are there, instead of a
     * hashed look-up per name it might have to remove (a dozen per leg).
     */
    static int scan(HttpHeaders h) {
        int seen = 0;
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iteratorCharSequence(); it.hasNext(); ) {
            CharSequence n = it.next().getKey();
            switch (n.length()) {
                case 2: seen |= bitIf(n, I_TE); break;
                case 7: seen |= bitIf(n, I_TRAILER) | bitIf(n, I_UPGRADE); break;
                case 10: seen |= bitIf(n, I_CONNECTION) | bitIf(n, I_KEEP_ALIVE); break;
                case 14: seen |= is(n, HttpHeaderNames.CONTENT_LENGTH, CONTENT_LENGTH); break;
                case 15: seen |= is(n, X_FORWARDED_FOR, FORWARDED_FOR); break;
                case 16: seen |= bitIf(n, I_PROXY_CONNECTION) | is(n, X_FORWARDED_HOST, FORWARDED_HOST); break;
                case 17: seen |= bitIf(n, I_TRANSFER_ENCODING) | is(n, X_FORWARDED_PROTO, FORWARDED_PROTO); break;
                case 18: seen |= bitIf(n, I_PROXY_AUTHENTICATE); break;
                case 19: seen |= bitIf(n, I_PROXY_AUTHORIZATION); break;
                default: break;
            }
        }
        return seen;
    }

    private static int bitIf(CharSequence name, int hopIndex) {
        return is(name, HOP_BY_HOP[hopIndex], 1 << hopIndex);
    }

    private static int is(CharSequence name, AsciiString expected, int bit) {
        return AsciiString.contentEqualsIgnoreCase(name, expected) ? bit : 0;
    }

    private static void put(HttpHeaders h, AsciiString name, String value, boolean present) {
        if (present) {
            h.set(name, value);
        } else {
            h.add(name, value);
        }
    }

    private static boolean isPlainConnectionOption(String value) {
        return value.equalsIgnoreCase("keep-alive") || value.equalsIgnoreCase("close");
    }
}
