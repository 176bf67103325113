package dev.idemproxy.core.upstream;

import dev.idemproxy.core.route.TlsPolicy;
import dev.idemproxy.core.route.PoolPolicy;

import dev.idemproxy.core.route.Route;
import java.time.Duration;
import java.util.Locale;

/**
 * What makes two routes share upstream connections: the same origin, TLS settings, pool
 * settings and idle timeout. This class is immutable.
 */
record PoolKey(boolean tls, String host, int port, TlsPolicy tlsPolicy, PoolPolicy pool, Duration idle, Duration connect) {
    static PoolKey of(Route r) {
        return new PoolKey(r.isTls(), r.upstream().getHost().toLowerCase(Locale.ROOT), r.upstreamPort(), r.tls(), r.pool(),
                r.timeouts().idle(), r.timeouts().connect());
    }

    @Override
    public String toString() {
        return (tls ? "https://" : "http://") + host + ":" + port;
    }
}
