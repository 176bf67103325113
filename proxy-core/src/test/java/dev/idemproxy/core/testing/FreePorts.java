package dev.idemproxy.core.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Loopback ports that were free a moment ago, for the rare case a port must be known before the
 * server binds (a config file, a child JVM). Prefer binding port 0 and asking the server. There is
 * a small window in which another process may take the port. Stateless.
 */
public final class FreePorts {

    private FreePorts() {
    }

    /** One free port on 127.0.0.1. */
    public static int pick() {
        return pick(1)[0];
    }

    /** {@code n} distinct free ports on 127.0.0.1 (all held open until every one is chosen). */
    public static int[] pick(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("n: " + n + " (expected: >= 1)");
        }
        List<ServerSocket> held = new ArrayList<>(n);
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                held.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        } finally {
            for (ServerSocket s : held) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing a listening socket we own; nothing to do
                }
            }
        }
    }
}
