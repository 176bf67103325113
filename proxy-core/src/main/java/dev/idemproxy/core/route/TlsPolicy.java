package dev.idemproxy.core.route;

import java.nio.file.Path;

/**
 * How the proxy originates TLS to an https upstream. Certificates are always verified, against
 * {@code caFile} when set, else the JVM's trust store. This class is immutable.
 *
 * @param caFile     PEM file of trusted certificates, or null for the JVM's defaults
 * @param serverName SNI and verified host name; null = the upstream URI's host
 */
public record TlsPolicy(Path caFile, String serverName) {
    public static final TlsPolicy DEFAULT = new TlsPolicy(null, null);
}
