package dev.idemproxy.core.forward;

import static dev.idemproxy.core.util.Checks.positive;
import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The forward proxy's settings (YAML {@code forwardProxy}, CONTRACT §11): what a CONNECT to a host
 * that no route intercepts gets, where the local CA lives, and the blind tunnels' limits. Absent
 * from the config, CONNECT is answered 405. This class is immutable.
 *
 * @param connect              a CONNECT to a host no route intercepts: tunnelled blind or refused (403)
 * @param caCert               the CA certificate (PEM); generated with {@code caKey} when both are absent
 * @param caKey                the CA's private key (PEM, PKCS#8); written with mode 0600
 * @param tunnelIdleTimeout    a blind tunnel with no byte either way for this long is closed
 * @param tunnelConnectTimeout the longest a blind tunnel's connection to its target may take
 */
public record ForwardProxyPolicy(ConnectMode connect, Path caCert, Path caKey, Duration tunnelIdleTimeout,
        Duration tunnelConnectTimeout) {
    public static final Duration DEFAULT_TUNNEL_IDLE_TIMEOUT = Duration.ofMinutes(5);
    public static final Duration DEFAULT_TUNNEL_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    public static final String DEFAULT_CA_CERT = "ca.crt";
    public static final String DEFAULT_CA_KEY = "ca.key";

    /** What a CONNECT to a host that no route intercepts gets. */
    public enum ConnectMode {
        /** A blind TCP tunnel: the bytes pass untouched both ways. */
        TUNNEL("tunnel"),
        /** 403 {@code connect-refused}. */
        REFUSE("refuse");

        private final String spelling;

        ConnectMode(String spelling) {
            this.spelling = spelling;
        }

        /** The config's spelling. */
        public String spelling() {
            return spelling;
        }
    }

    public ForwardProxyPolicy {
        requireNonNull(connect, "connect");
        requireNonNull(caCert, "caCert");
        requireNonNull(caKey, "caKey");
        positive(tunnelIdleTimeout, "tunnelIdleTimeout");
        positive(tunnelConnectTimeout, "tunnelConnectTimeout");
        if (caCert.toAbsolutePath().normalize().equals(caKey.toAbsolutePath().normalize())) {
            throw new IllegalArgumentException("ca.cert and ca.key are the same file " + caKey + " (expected: two files)");
        }
    }

    /** Tunnels, with the CA files {@code ca.crt} and {@code ca.key} in {@code dataDir} and the default timeouts. */
    public static ForwardProxyPolicy defaults(Path dataDir) {
        return new ForwardProxyPolicy(ConnectMode.TUNNEL, dataDir.resolve(DEFAULT_CA_CERT), dataDir.resolve(DEFAULT_CA_KEY),
                DEFAULT_TUNNEL_IDLE_TIMEOUT, DEFAULT_TUNNEL_CONNECT_TIMEOUT);
    }
}
