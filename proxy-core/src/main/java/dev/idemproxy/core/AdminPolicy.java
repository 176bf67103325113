package dev.idemproxy.core;

import static dev.idemproxy.core.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

/**
 * The admin listener: where it listens and the Bearer token it requires (empty: none).
 * A non-loopback address without a token is refused. This class is immutable.
 */
public record AdminPolicy(HostPort listen, String token) {
    public static final AdminPolicy DEFAULT = new AdminPolicy(new HostPort("127.0.0.1", 9901), "");

    public AdminPolicy {
        requireNonNull(listen, "listen");
        token = token == null ? "" : token;
    }

    public boolean hasToken() {
        return !token.isEmpty();
    }

    /** Throws when the listener would be reachable from other hosts without a token. */
    public void requireSafe() {
        requireArgument(hasToken() || listen.isLoopback(),
                "admin.listen " + listen + " is not a loopback address (expected: a loopback address, or set admin.token)");
    }

    @Override
    public String toString() {
        return "AdminPolicy[listen=" + listen + ", token=" + (hasToken() ? dev.idemproxy.core.secret.Redactor.MASK : "") + "]";
    }
}
