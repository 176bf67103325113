package dev.idemproxy.core;

import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * A listen address, {@code host:port}; port 0 picks a free port. This class is immutable.
 */
public record HostPort(String host, int port) {
    public HostPort {
        requireNonNull(host, "host");
        requireArgument(!host.isBlank(), "host is empty (expected: a host name or address)");
        requireArgument(port >= 0 && port <= 65535, "port " + port + " (expected: 0..65535)");
    }

    /** Parses {@code host:port}, {@code [v6]:port} or {@code :port} (all interfaces). */
    public static HostPort parse(String text) {
        requireNonNull(text, "text");
        String t = text.trim();
        int colon = t.lastIndexOf(':');
        requireArgument(colon >= 0, "'" + text + "' has no port (expected: host:port)");
        String host = t.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty()) {
            host = "0.0.0.0";
        }
        int port;
        try {
            port = Integer.parseInt(t.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' has a bad port (expected: host:port, port 0..65535)");
        }
        return new HostPort(host, port);
    }

    public InetSocketAddress toSocketAddress() {
        return new InetSocketAddress(host, port);
    }

    /** True when every address the host resolves to is a loopback address. */
    public boolean isLoopback() {
        try {
            for (InetAddress a : InetAddress.getAllByName(host)) {
                if (!a.isLoopbackAddress()) {
                    return false;
                }
            }
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
