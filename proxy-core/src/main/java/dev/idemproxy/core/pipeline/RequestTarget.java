package dev.idemproxy.core.pipeline;

import java.util.Locale;

/**
 * Where a request is addressed, from its request-target and Host header: origin-form
 * ({@code /path?q} with Host) or absolute-form ({@code http://host:port/path?q}, what an agent
 * sends when its HTTP_PROXY points at the proxy). The path is {@linkplain PathNormalization
 * normalised} (unreserved escapes decoded, dot-segments removed) before anything sees it; the
 * query is kept as sent. Pure. This class is immutable.
 *
 * @param host         lower-case host without port, for matching; null when none was named
 * @param authority    host[:port] as the client named it, for X-Forwarded-Host; may be null
 * @param path         the normalised path without query, for matching and derived keys
 * @param pathAndQuery origin-form target to send upstream: the normalised path and the query as sent
 */
record RequestTarget(String host, String authority, String path, String pathAndQuery) {

    /**
     * Returns null for a target that is neither origin-form nor absolute-form http(s), or whose
     * path has a malformed percent-encoding, or that carries a fragment ({@code #}: a client
     * never sends one, RFC 9112 §3.2, and an upstream could read the path differently from the
     * route that matched it); {@link #whyUnusable} says which.
     */
    static RequestTarget of(String uri, String hostHeader) {
        if (uri.indexOf('#') >= 0) {
            return null;
        }
        if (uri.startsWith("/")) {
            return withPath(hostOf(hostHeader), hostHeader, uri);
        }
        if (uri.equals("*")) {
            return new RequestTarget(hostOf(hostHeader), hostHeader, "*", "*");
        }
        int schemeEnd = schemeEnd(uri);
        if (schemeEnd < 0) {
            return null;
        }
        int slash = indexOfAny(uri, schemeEnd);
        String authority = slash < 0 ? uri.substring(schemeEnd) : uri.substring(schemeEnd, slash);
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            authority = authority.substring(at + 1);
        }
        if (authority.isEmpty()) {
            return null;
        }
        String rest = slash < 0 ? "/" : uri.substring(slash);
        if (rest.startsWith("?")) {
            rest = "/" + rest;
        }
        return withPath(hostOf(authority), authority, rest);
    }

    /** Why {@link #of} found {@code uri} unusable: a sentence for the 400's detail. */
    static String whyUnusable(String uri) {
        if (uri.indexOf('#') >= 0) {
            return "a fragment ('#') in the request target (expected: none)";
        }
        // Only a path's escapes depend on '%': with every '%' gone, a target still unusable has the wrong form.
        return of(uri.replace('%', '_'), null) != null
                ? "malformed percent-encoding in the request path (expected: '%' and two hex digits)"
                : "unusable request target (expected: origin-form /path or absolute-form http(s)://host/path)";
    }

    /**
     * The target of an origin-form {@code pathAndQuery}, its path normalised; null when the
     * path's percent-encoding is malformed. An already normal path costs one scan and, without a
     * query, no allocation beyond the record.
     */
    private static RequestTarget withPath(String host, String authority, String pathAndQuery) {
        int scanned = PathNormalization.scan(pathAndQuery);
        if (scanned >= 0) {
            String path = scanned == pathAndQuery.length() ? pathAndQuery : pathAndQuery.substring(0, scanned);
            return new RequestTarget(host, authority, path, pathAndQuery);
        }
        int end = ~scanned;
        String path = PathNormalization.normalize(pathAndQuery, end);
        if (path == null) {
            return null;
        }
        return new RequestTarget(host, authority, path, end == pathAndQuery.length() ? path : path + pathAndQuery.substring(end));
    }

    /** 7 for {@code http://}, 8 for {@code https://} (either case), else -1. */
    private static int schemeEnd(String uri) {
        if (uri.regionMatches(true, 0, "http://", 0, 7)) {
            return 7;
        }
        return uri.regionMatches(true, 0, "https://", 0, 8) ? 8 : -1;
    }

    private static int indexOfAny(String s, int from) {
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '/' || c == '?') {
                return i;
            }
        }
        return -1;
    }

    /** host[:port] or [v6]:port → lower-case host. */
    static String hostOf(String authority) {
        if (authority == null || authority.isEmpty()) {
            return null;
        }
        String a = authority.trim();
        if (a.startsWith("[")) {
            int end = a.indexOf(']');
            return end < 0 ? a.toLowerCase(Locale.ROOT) : a.substring(1, end).toLowerCase(Locale.ROOT);
        }
        int colon = a.indexOf(':');
        String h = colon < 0 ? a : a.substring(0, colon);
        if (h.endsWith(".")) {
            h = h.substring(0, h.length() - 1);
        }
        return h.toLowerCase(Locale.ROOT);
    }
}
