package dev.idemproxy.core.idempotency;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.util.Checks;
import java.util.List;

/**
 * Who a key belongs to (docs/configuration.md {@code idempotency.scope}, §12; by default the credential
 * headers, see {@link ScopePolicy}): a hash of the scope parts' values, so keys never cross
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

    /** The scope of a request under a route's scope policy. */
    public static Scope of(ScopePolicy scope, RequestView request) {
        return new Scope(PartHasher.hex(PURPOSE, requireNonNull(scope, "scope"), requireNonNull(request, "request"), 16));
    }

    /**
     * The scope of a connection's requests, remembered ({@link PartHasher.Memo}): a client on a
     * keep-alive connection sends the same credentials each time. Not thread-safe: one instance
     * per connection.
     */
    public static final class Memo {
        private final PartHasher.Memo hashes = new PartHasher.Memo();
        private Scope last;

        /** Equal to {@link Scope#of(List, RequestView)}. */
        public Scope of(List<RequestPart> parts, RequestView request) {
            return remembered(hashes.hex(PURPOSE, requireNonNull(parts, "parts"), requireNonNull(request, "request"), 16));
        }

        /** Equal to {@link Scope#of(ScopePolicy, RequestView)}. */
        public Scope of(ScopePolicy scope, RequestView request) {
            return remembered(hashes.hex(PURPOSE, requireNonNull(scope, "scope"), requireNonNull(request, "request"), 16));
        }

        private Scope remembered(String h) {
            if (last == null || !last.hash.equals(h)) {
                last = new Scope(h);
            }
            return last;
        }
    }

    @Override
    public String toString() {
        return hash;
    }
}
