package dev.idemproxy.core.idempotency;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.Checks;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * What must match when a key is reused (CONTRACT §3 {@code idempotency.fingerprint}; a mismatch
 * is 422 {@code key-reused-with-different-payload}): SHA-256 over the configured parts. A JSON
 * body (by content type) is hashed in {@link CanonicalJson canonical form}, so key order and
 * whitespace do not matter; any other body is hashed as sent. The default parts are
 * {@code [body]} for client and generated keys and the derive parts for derived keys.
 * This class is immutable.
 *
 * @param value 64 lower-case hex digits
 */
public record Fingerprint(String value) {
    static final String PURPOSE = "idemproxy-fingerprint-v1";
    static final List<RequestPart> BODY = List.of(new RequestPart(RequestPart.Kind.BODY, ""));

    public Fingerprint {
        requireNonNull(value, "value");
        if (!Checks.isLowerHex(value, 64)) {
            throw new IllegalArgumentException("fingerprint '" + value + "' (expected: 64 lower-case hex digits)");
        }
    }

    /** The fingerprint of a request over the given parts. */
    public static Fingerprint of(List<RequestPart> parts, RequestView request) {
        return new Fingerprint(PartHasher.hex(PURPOSE, requireNonNull(parts, "parts"), requireNonNull(request, "request"), 32));
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

    @Override
    public String toString() {
        return value;
    }

    /**
     * The fingerprints of a connection's requests, remembered: an agent retrying a call sends the
     * same body again, and the bench's clients send one body throughout, so the last fingerprint is
     * reused when the next request has the same parts (the same route table) and, for parts that
     * read only the body, the same body bytes and content type; for other parts, the same part
     * values. Inputs are compared, never assumed. A body (or part values) over {@value #MAX_BODY}
     * bytes is not kept, so an idle connection holds little. Not thread-safe: one instance per connection.
     */
    public static final class Memo {
        static final int MAX_BODY = 4096;

        private List<RequestPart> parts;
        /** For body-only parts: the last body and content type. */
        private byte[] body;
        private String contentType;
        /** For other parts: the last part values. */
        private byte[][] values;
        private Fingerprint last;

        /** Equal to {@link Fingerprint#of(List, RequestView)}. */
        public Fingerprint of(List<RequestPart> parts, RequestView request) {
            requireNonNull(parts, "parts");
            requireNonNull(request, "request");
            if (bodyOnly(parts)) {
                byte[] b = request.body();
                String type = request.contentType();
                if (parts == this.parts && body != null && Arrays.equals(b, body) && Objects.equals(type, contentType)) {
                    return last;
                }
                Fingerprint f = Fingerprint.of(parts, request);
                remember(parts, b.length <= MAX_BODY ? b : null, type, null, f);
                return f;
            }
            byte[][] v = PartHasher.values(parts, request);
            if (parts == this.parts && values != null && Arrays.deepEquals(v, values)) {
                return last;
            }
            Fingerprint f = new Fingerprint(PartHasher.hex(PURPOSE, parts, v, 32));
            remember(parts, null, null, size(v) <= MAX_BODY ? v : null, f);
            return f;
        }

        private static long size(byte[][] values) {
            long n = 0;
            for (byte[] v : values) {
                n += v == null ? 0 : v.length;
            }
            return n;
        }

        /** The memo's answer for {@code policy} and {@code key}: equal to {@link Fingerprint#of(IdempotencyPolicy, KeyResolution, RequestView)}. */
        public Fingerprint of(IdempotencyPolicy policy, KeyResolution key, RequestView request) {
            return of(parts(policy, key.derived()), request);
        }

        private void remember(List<RequestPart> parts, byte[] body, String contentType, byte[][] values, Fingerprint f) {
            this.parts = parts;
            this.body = body;
            this.contentType = contentType;
            this.values = values;
            this.last = f;
        }

        /** Whether the parts read nothing but the body (and, for {@code body}, its content type). */
        private static boolean bodyOnly(List<RequestPart> parts) {
            for (int i = 0; i < parts.size(); i++) {
                RequestPart.Kind k = parts.get(i).kind();
                if (k != RequestPart.Kind.BODY && k != RequestPart.Kind.BODY_POINTER) {
                    return false;
                }
            }
            return true;
        }
    }
}
