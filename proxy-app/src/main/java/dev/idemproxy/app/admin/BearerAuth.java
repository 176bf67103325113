package dev.idemproxy.app.admin;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Set;

/**
 * Decides whether a request may reach the admin API: with a token configured, every path but
 * {@code /healthz}, {@code /readyz} and the console's assets needs {@code Authorization: Bearer <token>}, compared in
 * constant time. Pure logic, no I/O. This class is immutable.
 */
final class BearerAuth {
    /**
     * Paths a load balancer or kubelet probes without credentials (docs/admin-api.md), and the
     * console's assets, which hold no data ({@link ConsoleEndpoints}).
     */
    static final Set<String> OPEN_PATHS = openPaths();

    private static Set<String> openPaths() {
        java.util.Set<String> open = new java.util.HashSet<>(ConsoleEndpoints.ASSETS.keySet());
        open.add("/healthz");
        open.add("/readyz");
        return Set.copyOf(open);
    }

    private static final String SCHEME = "Bearer";

    private final byte[] token;

    /** {@code token} empty: no authentication at all. */
    BearerAuth(String token) {
        this.token = token.getBytes(StandardCharsets.UTF_8);
    }

    /** True when a request for the decoded {@code path} with this {@code Authorization} value may proceed. */
    boolean permits(String path, String authorization) {
        if (token.length == 0 || OPEN_PATHS.contains(path)) {
            return true;
        }
        if (authorization == null || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())
                || authorization.length() <= SCHEME.length()
                || !Character.isWhitespace(authorization.charAt(SCHEME.length()))) {
            return false;
        }
        byte[] presented = authorization.substring(SCHEME.length()).trim().getBytes(StandardCharsets.UTF_8);
        // The expected token goes first: MessageDigest.isEqual's time depends on its length only.
        return MessageDigest.isEqual(token, presented);
    }
}
