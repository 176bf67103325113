package dev.idemproxy.core.idempotency;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.util.Checks;
import dev.idemproxy.core.util.Checks;
import java.util.ArrayList;
import java.util.List;

/**
 * What must match when a key is reused (docs/configuration.md {@code idempotency.fingerprint}, §12; a
 * mismatch is 422 {@code key-reused-with-different-payload}): SHA-256 over the request's parts. A
 * JSON body (by content type) is hashed in {@link CanonicalJson canonical form}, so key order and
 * whitespace do not matter; any other body is hashed as sent.
 *
 * <p><b>A record belongs to one endpoint.</b> A route's fingerprint ({@link #of(IdempotencyPolicy,
 * KeyResolution, RequestView)}) is always taken over the method and the path first, then the
 * configured parts (their own {@code method} and {@code path} are not repeated); the default parts
 * are {@code [body]} for client and generated keys and the derive parts for derived keys. So the
 * same key sent to another method or path of the route gets 422, never the other endpoint's
 * response; a HEAD is never replayed a GET's record, nor a GET a HEAD's.
 *
 * <p><b>Records written before.</b> Earlier builds fingerprinted the configured parts alone
 * ({@link #legacy}, purpose {@link #PURPOSE}, a HEAD apart under {@link #PURPOSE_HEAD}); the
 * endpoint fingerprint is hashed under its own purpose {@link #PURPOSE_ENDPOINT}, so the two never
 * match each other. A claim whose fingerprint does not match asks again with the legacy one
 * (see the idempotency gate): a record written before the upgrade keeps being replayed to its
 * duplicates for the rest of its ttl, as it was then; one written since matches only the
 * endpoint fingerprint. This class is immutable.
 *
 * @param value 64 lower-case hex digits
 */
public record Fingerprint(String value) {
    static final String PURPOSE = "idemproxy-fingerprint-v1";
    static final String PURPOSE_HEAD = "idemproxy-fingerprint-v1-head";
    static final String PURPOSE_ENDPOINT = "idemproxy-fingerprint-v2";
    static final List<RequestPart> BODY = List.of(new RequestPart(RequestPart.Kind.BODY, ""));

    public Fingerprint {
        requireNonNull(value, "value");
        if (!Checks.isLowerHex(value, 64)) {
            throw new IllegalArgumentException("fingerprint '" + value + "' (expected: 64 lower-case hex digits)");
        }
    }

    /** The fingerprint of a request over exactly the given parts (the way earlier builds fingerprinted a route's calls). */
    public static Fingerprint of(List<RequestPart> parts, RequestView request) {
        return new Fingerprint(PartHasher.hex(purpose(request), requireNonNull(parts, "parts"), requireNonNull(request, "request"), 32));
    }

    /** The fingerprint a route's policy asks for, given how the key was found: method, path, then the parts. */
    public static Fingerprint of(IdempotencyPolicy policy, KeyResolution key, RequestView request) {
        return of(policy, key.derived(), request);
    }

    /** As {@link #of(IdempotencyPolicy, KeyResolution, RequestView)}, the parts chosen by {@link #parts}. */
    public static Fingerprint of(IdempotencyPolicy policy, boolean derivedKey, RequestView request) {
        return new Fingerprint(PartHasher.hex(PURPOSE_ENDPOINT, endpointAnd(parts(policy, derivedKey)),
                requireNonNull(request, "request"), 32));
    }

    /**
     * The fingerprint earlier builds gave a route's call: the configured or default parts alone,
     * without the method and path. Only to find the records they wrote.
     */
    public static Fingerprint legacy(IdempotencyPolicy policy, boolean derivedKey, RequestView request) {
        return of(parts(policy, derivedKey), request);
    }

    /** The configured parts, or the default: the derive parts for derived keys, else {@code [body]}. */
    public static List<RequestPart> parts(IdempotencyPolicy policy, boolean derivedKey) {
        if (!policy.fingerprint().isEmpty()) {
            return policy.fingerprint();
        }
        return derivedKey && !policy.key().derive().isEmpty() ? policy.key().derive() : BODY;
    }

    /** {@code method} and {@code path}, then {@code parts} without their own method and path. */
    static List<RequestPart> endpointAnd(List<RequestPart> parts) {
        List<RequestPart> all = new ArrayList<>(parts.size() + 2);
        all.add(new RequestPart(RequestPart.Kind.METHOD, ""));
        all.add(new RequestPart(RequestPart.Kind.PATH, ""));
        for (RequestPart p : parts) {
            if (p.kind() != RequestPart.Kind.METHOD && p.kind() != RequestPart.Kind.PATH) {
                all.add(p);
            }
        }
        return List.copyOf(all);
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
     * retrying a call sends the same body again (HEAD requests under {@link #of(List, RequestView)},
     * hashed under another purpose, are not remembered). Not thread-safe: one instance per connection.
     */
    public static final class Memo {
        private final PartHasher.Memo hashes = new PartHasher.Memo();
        /** Apart from {@link #hashes}: a hash memo knows one purpose. */
        private final PartHasher.Memo endpointHashes = new PartHasher.Memo();
        private Fingerprint last;
        /** The last parts given and their {@link #endpointAnd} list: the same list each time, as the hash memo needs. */
        private List<RequestPart> lastParts;
        private List<RequestPart> lastEndpointParts;

        /** Equal to {@link Fingerprint#of(List, RequestView)}. */
        public Fingerprint of(List<RequestPart> parts, RequestView request) {
            if (isHead(requireNonNull(request, "request"))) {
                return Fingerprint.of(parts, request);
            }
            return remembered(hashes.hex(PURPOSE, requireNonNull(parts, "parts"), request, 32));
        }

        /** Equal to {@link Fingerprint#of(IdempotencyPolicy, KeyResolution, RequestView)}. */
        public Fingerprint of(IdempotencyPolicy policy, KeyResolution key, RequestView request) {
            List<RequestPart> parts = parts(policy, key.derived());
            if (parts != lastParts) {
                lastParts = parts;
                lastEndpointParts = endpointAnd(parts);
            }
            return remembered(endpointHashes.hex(PURPOSE_ENDPOINT, lastEndpointParts, requireNonNull(request, "request"), 32));
        }

        private Fingerprint remembered(String h) {
            if (last == null || !last.value.equals(h)) {
                last = new Fingerprint(h);
            }
            return last;
        }
    }
}
