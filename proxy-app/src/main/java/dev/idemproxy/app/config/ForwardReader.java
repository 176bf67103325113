package dev.idemproxy.app.config;

import dev.idemproxy.core.forward.ForwardProxyPolicy;
import dev.idemproxy.core.forward.ForwardProxyPolicy.ConnectMode;
import dev.idemproxy.core.forward.LocalCa;
import dev.idemproxy.core.route.RouteMatch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * Maps {@code forwardProxy} (docs/https-proxy.md) onto {@link ForwardProxyPolicy}, and the route keys of
 * the forward proxy: {@code intercept}, and a route without {@code upstream}, which must name
 * {@code match.host}. CA files are checked as the proxy will use them: both present (then they
 * must be a CA valid now and its key) or both absent (then a CA is generated at start).
 * This class is stateless.
 */
final class ForwardReader {
    private ForwardReader() {}

    /**
     * The forward proxy's settings, or null when the config has no {@code forwardProxy}. Relative
     * CA paths resolve against the config file's folder, as every path in the file does; by
     * default the files are {@code ca.crt} and {@code ca.key} in {@code dataDir} (the store's
     * {@code embedded.path}, already resolved so).
     */
    static ForwardProxyPolicy read(MapReader root, Path dataDir) {
        if (!root.has("forwardProxy")) {
            return null;
        }
        MapReader m = root.map("forwardProxy");
        ForwardProxyPolicy d = ForwardProxyPolicy.defaults(dataDir);
        ConnectMode connect = m.parsed("connect", d.connect(), "tunnel or refuse",
                t -> Choices.of(ConnectMode.values(), ConnectMode::spelling, t));
        MapReader ca = m.map("ca");
        Path base = m.reading().baseDir();
        Path cert = ca.parsed("cert", d.caCert(), "a file name", t -> path(base, t));
        Path key = ca.parsed("key", d.caKey(), "a file name", t -> path(base, t));
        Duration idle = m.duration("tunnelIdleTimeout", d.tunnelIdleTimeout(), false);
        Duration connectTimeout = m.duration("tunnelConnectTimeout", d.tunnelConnectTimeout(), false);
        ForwardProxyPolicy p = m.reading().problems().build(m.at("ca"), m.path("ca"),
                () -> new ForwardProxyPolicy(connect, cert, key, idle, connectTimeout));
        if (p != null) {
            checkCaFiles(ca, p);
        }
        return p;
    }

    private static void checkCaFiles(MapReader ca, ForwardProxyPolicy p) {
        boolean cert = Files.exists(p.caCert());
        boolean key = Files.exists(p.caKey());
        if (cert != key) {
            ca.problem(cert ? "key" : "cert", (cert ? p.caKey() : p.caCert()) + " does not exist but "
                    + (cert ? p.caCert() : p.caKey()) + " does (expected: both files, or neither and a new CA is generated at start)");
            return;
        }
        if (cert) {
            try {
                LocalCa.load(p.caCert(), p.caKey(), Clock.systemUTC());
            } catch (IllegalArgumentException e) {
                String msg = e.getMessage();
                boolean aboutKey = msg.startsWith("forwardProxy.ca.key");
                ca.problem(aboutKey ? "key" : "cert", msg.substring(msg.indexOf(": ") + 2));
            } catch (IOException e) {
                ca.problem("cert", "cannot be read: " + e.getMessage());
            }
        }
    }

    /** {@code routes[].intercept}: terminate TLS for CONNECTs to this route's {@code match.host}. */
    static boolean intercept(MapReader route, RouteMatch match, boolean forwardProxy) {
        boolean intercept = route.bool("intercept", false);
        if (intercept && match.host() == null) {
            route.problem("intercept", "true without match.host (expected: a match.host, the host whose CONNECTs are intercepted)");
            return false;  // reported here; the route's own check would say it again
        }
        if (intercept && !forwardProxy) {
            route.problem("intercept", "true without a forwardProxy section (expected: forwardProxy, which makes the proxy answer CONNECT)");
        }
        return intercept;
    }

    /**
     * Reports a route that has neither {@code upstream} nor {@code match.host}: without an upstream
     * a route forwards to the host the client asked for, which only a named host makes safe.
     */
    static void requireUpstreamOrHost(MapReader route, RouteMatch match) {
        if (!route.has("upstream") && match.host() == null) {
            route.problem("upstream", "missing (expected: an upstream URI, or a match.host: a route without upstream "
                    + "forwards to the host the client asked for)");
        }
    }

    private static Path path(Path base, String text) {
        try {
            return base.resolve(text).normalize();
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("'" + text + "' is not a valid path (expected: a file name)");
        }
    }
}
