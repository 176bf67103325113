package dev.idemproxy.core.idempotency;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.Checks;
import java.util.Arrays;
import java.util.List;

/**
 * Who a key belongs to (CONTRACT §3 {@code idempotency.scope}, default
 * {@code [header:Authorization]}): a hash of the scope parts' values, so keys never cross
 * principals while the values themselves (tokens, cookies) are never kept. Records live in the
 * store under (route, scope hash, key). Requests without any of the parts share one scope.
 * This class is immutable.
 *
 * @param hash 32 lower-case hex digits (128 bits of SHA-256)
 */
public record Scope(String hash) {
    static final String PURPOSE = "idemproxy-scope-v1";

    public Scope {
        requireNonNull(hash, "hash");
        if (!Checks.isLowerHex(hash, 32)) {
            throw new IllegalArgumentException("scope hash '" + hash + "' (expected: 32 lower-case hex digits)");
        }
    }

    /** The scope of a request under the configured parts. */
    public static Scope of(List<RequestPart> parts, RequestView request) {
        return new Scope(PartHasher.hex(PURPOSE, requireNonNull(parts, "parts"), requireNonNull(request, "request"), 16));
    }

    /**
     * The scope of a connection's requests, remembered: a client on a keep-alive connection sends
     * the same credentials with every request, so the hash of the last values is kept and reused
     * when the next request's values are the same bytes under the same parts (the same route
     * table). Values are compared, never assumed. Not thread-safe: one instance per connection.
     */
    public static final class Memo {
        private List<RequestPart> parts;
        private byte[][] values;
        private Scope scope;

        /** Equal to {@link Scope#of(List, RequestView)}. */
        public Scope of(List<RequestPart> parts, RequestView request) {
            byte[][] v = PartHasher.values(requireNonNull(parts, "parts"), requireNonNull(request, "request"));
            if (parts == this.parts && Arrays.deepEquals(v, values)) {
                return scope;
            }
            Scope s = new Scope(PartHasher.hex(PURPOSE, parts, v, 16));
            this.parts = parts;
            this.values = v;
            this.scope = s;
            return s;
        }
    }

    @Override
    public String toString() {
        return hash;
    }
}
