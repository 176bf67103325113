package dev.idemproxy.core.forward;

import java.util.Locale;

/**
 * Where a CONNECT asks to go: the authority-form {@code host:port} of its request line (RFC 9110
 * §9.3.6), the host lower-case and without a trailing dot or IPv6 brackets. Requests inside an
 * intercepted CONNECT are routed by this host. This class is immutable.
 *
 * @param host a DNS name, an IPv4 address or an IPv6 address (without brackets)
 * @param port 1-65535
 */
public record ConnectTarget(String host, int port) {

    public ConnectTarget {
        if (parseHost(host) == null || port < 1 || port > 65535) {
            throw new IllegalArgumentException("'" + host + ":" + port + "' (expected: host:port, port 1-65535)");
        }
    }

    /**
     * The target of a CONNECT request line's target, or null when it is not {@code host:port}
     * with a DNS name, IPv4 or bracketed IPv6 address and a port in 1-65535. Pure.
     */
    public static ConnectTarget parse(String authority) {
        int colon = authority.lastIndexOf(':');
        if (colon <= 0 || colon == authority.length() - 1 || authority.length() - colon > 6) {
            return null;
        }
        int port = 0;
        for (int i = colon + 1; i < authority.length(); i++) {
            char c = authority.charAt(i);
            if (c < '0' || c > '9') {
                return null;
            }
            port = port * 10 + (c - '0');
        }
        String rawHost = authority.substring(0, colon);
        String host;
        if (rawHost.startsWith("[") && rawHost.endsWith("]")) {
            host = rawHost.substring(1, rawHost.length() - 1);
            if (!isIpv6(host)) {
                return null;
            }
        } else {
            host = rawHost.indexOf(':') >= 0 ? null : parseHost(rawHost);  // an IPv6 address needs its brackets
        }
        if (host == null || port < 1 || port > 65535) {
            return null;
        }
        return new ConnectTarget(host.toLowerCase(Locale.ROOT), port);
    }

    /** {@code host:port}, an IPv6 address in brackets: for log lines and problem details. */
    public String authority() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /** {@code host}, an IPv6 address in brackets, with {@code :port} unless it is 443: a Host header's value. */
    public String hostHeader() {
        return port == 443 ? (host.indexOf(':') >= 0 ? "[" + host + "]" : host) : authority();
    }

    /** Whether the host is an IP address rather than a name. */
    public boolean isIpAddress() {
        return host.indexOf(':') >= 0 || isIpv4(host);
    }

    /** A DNS name or IPv4 address without a trailing dot, or an IPv6 address; null when it is neither. */
    private static String parseHost(String h) {
        if (h == null) {
            return null;
        }
        if (h.indexOf(':') >= 0) {
            return isIpv6(h) ? h : null;
        }
        String name = h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
        if (name.isEmpty() || name.length() > 253) {
            return null;
        }
        for (String label : name.split("\\.", -1)) {
            if (label.isEmpty() || label.length() > 63 || label.startsWith("-") || label.endsWith("-")) {
                return null;
            }
            for (int i = 0; i < label.length(); i++) {
                char c = label.charAt(i);
                boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
                if (!ok) {
                    return null;
                }
            }
        }
        return name;
    }

    private static boolean isIpv4(String h) {
        String[] parts = h.split("\\.", -1);
        if (parts.length != 4) {
            return false;
        }
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit) || Integer.parseInt(p) > 255) {
                return false;
            }
        }
        return true;
    }

    private static boolean isIpv6(String h) {
        if (h.isEmpty() || h.length() > 45 || h.indexOf(':') < 0) {
            return false;
        }
        for (int i = 0; i < h.length(); i++) {
            char c = h.charAt(i);
            boolean ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
