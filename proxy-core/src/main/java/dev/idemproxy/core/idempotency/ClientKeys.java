package dev.idemproxy.core.idempotency;

import static java.util.Objects.requireNonNull;

/**
 * The client's own idempotency key of a request, read and validated exactly as
 * {@link KeyResolver} reads it (one header line; bare or RFC 8941 quoted; 1-255 visible ASCII),
 * for call dialects that derive their own keys when the client sent none. This class is stateless.
 */
public final class ClientKeys {
    private ClientKeys() {}

    /**
     * The client's key in {@code header}: a {@code CLIENT} or {@code BAD} resolution, or null when
     * the request carries no such header.
     */
    public static KeyResolution read(String header, RequestView request) {
        requireNonNull(header, "header");
        requireNonNull(request, "request");
        String sent = request.header(header);
        if (sent == null) {
            return null;
        }
        int lines = request.headerLines(header);
        if (lines > 1) {
            return new KeyResolution(KeyResolution.Kind.BAD, null, null,
                    header + " was sent on " + lines + " header lines (expected: one key on one line)");
        }
        return KeyResolver.parseClientKey(header, sent);
    }
}
