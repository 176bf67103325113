package dev.idemproxy.core.idempotency;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.util.Checks;
import java.util.List;

/**
 * What must match when a key is reused (CONTRACT §3 {@code idempotency.fingerprint}; a mismatch
 * is 422 {@code key-reused-with-different-payload}): SHA-256 over the configured parts. A JSON
 * body (by content type) is hashed in {@link CanonicalJson canonical form}, so key order and
 * whitespace do not matter; any other body is hashed as sent. The default parts are
 * {@code [body]} for client and generated keys and the derive parts for derived keys.
 *
 * <p>A HEAD request is fingerprinted apart from every other method ({@link #PURPOSE_HEAD}),
 * whatever the parts: its stored response has no body, so it may only ever be replayed to another
 * HEAD, and a GET reusing a HEAD's key gets 422 instead of an empty body (and a HEAD reusing a
 * GET's key gets 422 too: one key, one request). Other methods share {@link #PURPOSE}, so records
 * stored by earlier versions keep matching; add {@code method} to the parts to tell them apart.
 * This class is immutable.
 *
 * @param value 64 lower-case hex digits
 */
public record Fingerprint(String value) {
    static final String PURPOSE = "idemproxy-fingerprint-v1";
    static final String PURPOSE_HEAD = "idemproxy-fingerprint-v1-head";
    static final List<RequestPart> BODY = List.of(new RequestPart(RequestPart.Kind.BODY, ""));

    public Fingerprint {
        requireNonNull(value, "value");
        if (!Checks.isLowerHex(value, 64)) {
            throw new IllegalArgumentException("fingerprint '" + value + "' (expected: 64 lower-case hex digits)");
        }
    }

    /** The fingerprint of a request over the given parts. */
    public static Fingerprint of(List<RequestPart> parts, RequestView request) {
        return new Fingerprint(PartHasher.hex(purpose(request), requireNonNull(parts, "parts"), requireNonNull(request, "request"), 32));
    }

    /** The fingerprint a route's policy asks for, given how the key was found. */
    public static Fingerprint of(IdempotencyPolicy policy, KeyResolution key, RequestView request) {
        return of(parts(policy, key.derived()), request);
    }

    /** The configured parts, or the default: the derive parts for derived keys, else {@code [body]}. */
    public static List<RequestPart> parts(IdempotencyPolicy policy, boolean derivedKey) {
        if (!policy.fingerprint().isEmpty()) {
            return policy.fingerprint();
        }
        return derivedKey && !policy.key().derive().isEmpty() ? policy.key().derive() : BODY;
    }

    private static String purpose(RequestView request) {
        return isHead(request) ? PURPOSE_HEAD : PURPOSE;
    }

    private static boolean isHead(RequestView request) {
        return "HEAD".equals(request.method());
    }

    @Override
    public String toString() {
        return value;
    }

    /**
     * The fingerprints of a connection's requests, remembered ({@link PartHasher.Memo}): an agent
     * retrying a call sends the same body again (HEAD requests, hashed under another purpose, are
     * not remembered). Not thread-safe: one instance per connection.
     */
    public static final class Memo {
        private final PartHasher.Memo hashes = new PartHasher.Memo();
        private Fingerprint last;

        /** Equal to {@link Fingerprint#of(List, RequestView)}. */
        public Fingerprint of(List<RequestPart> parts, RequestView request) {
            if (isHead(requireNonNull(request, "request"))) {
                return Fingerprint.of(parts, request);
            }
            String h = hashes.hex(PURPOSE, requireNonNull(parts, "parts"), requireNonNull(request, "request"), 32);
            if (last == null || !last.value.equals(h)) {
                last = new Fingerprint(h);
            }
            return last;
        }

        /** Equal to {@link Fingerprint#of(IdempotencyPolicy, KeyResolution, RequestView)}. */
        public Fingerprint of(IdempotencyPolicy policy, KeyResolution key, RequestView request) {
            return of(parts(policy, key.derived()), request);
        }
    }
}
