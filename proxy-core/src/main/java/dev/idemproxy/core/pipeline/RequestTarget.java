package dev.idemproxy.core.pipeline;

import java.util.Locale;

/**
 * Where a request is addressed, from its request-target and Host header: origin-form
 * ({@code /path?q} with Host) or absolute-form ({@code http://host:port/path?q}, what an agent
 * sends when its HTTP_PROXY points at the proxy). Pure. This class is immutable.
 *
 * @param host         lower-case host without port, for matching; null when none was named
 * @param authority    host[:port] as the client named it, for X-Forwarded-Host; may be null
 * @param path         the path without query, for matching
 * @param pathAndQuery origin-form target to send upstream
 */
record RequestTarget(String host, String authority, String path, String pathAndQuery) {

    /** Returns null for a target that is neither origin-form nor absolute-form http(s). */
    static RequestTarget of(String uri, String hostHeader) {
        if (uri.startsWith("/")) {
            return new RequestTarget(hostOf(hostHeader), hostHeader, pathOf(uri), uri);
        }
        String lower = uri.length() > 8 ? uri.substring(0, 8).toLowerCase(Locale.ROOT) : uri.toLowerCase(Locale.ROOT);
        int schemeEnd;
        if (lower.startsWith("http://")) {
            schemeEnd = 7;
        } else if (lower.startsWith("https://")) {
            schemeEnd = 8;
        } else if (uri.equals("*")) {
            return new RequestTarget(hostOf(hostHeader), hostHeader, "*", "*");
        } else {
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
        return new RequestTarget(hostOf(authority), authority, pathOf(rest), rest);
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

    private static String pathOf(String target) {
        int q = target.indexOf('?');
        return q < 0 ? target : target.substring(0, q);
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
