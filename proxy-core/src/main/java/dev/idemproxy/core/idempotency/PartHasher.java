package dev.idemproxy.core.idempotency;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * SHA-256 over request parts, unambiguous by construction: a purpose label, then for each part
 * its config spelling and either an absent marker ({@code 0}), or a one-value marker ({@code 1})
 * with the value's length and bytes, or, for a header sent on several lines, a several-lines
 * marker ({@code 2}) with the number of lines and each line's length and bytes, in the order
 * sent (lengths and counts are 8 bytes, big-endian). So {@code [a, bc]} never hashes like
 * {@code [ab, c]}, an absent header never like an empty one, two lines {@code a} and {@code b}
 * never like one line {@code a, b} (nor like any other single line), and a scope never like a
 * fingerprint of the same parts. In a credential scope ({@link ScopePolicy#credentials()}) every
 * part after the first is left out entirely, label and all, when the request does not carry it:
 * the parts are fixed and their labels frame each value, so this too is unambiguous.
 * Stateless and thread-safe.
 */
final class PartHasher {
    private static final HexFormat HEX = HexFormat.of();
    /** Looked up once: a provider lookup per call cost more than hashing a small request. */
    private static final MessageDigest SHA_256 = lookUpSha256();
    /** {@link #label}s made so far, by purpose (a String) or part. */
    private static final Map<Object, byte[]> LABELS = new ConcurrentHashMap<>();
    private static final int MAX_LABELS = 4096;

    private PartHasher() {}

    /** Hex of the first {@code bytes} bytes of the digest (at most 32). */
    static String hex(String purpose, List<RequestPart> parts, RequestView request, int bytes) {
        return hex(purpose, parts, values(parts, request), bytes, false);
    }

    /** {@link #hex(String, List, RequestView, int)} of a scope: {@link ScopePolicy#credentials()} leaves absent parts out. */
    static String hex(String purpose, ScopePolicy scope, RequestView request, int bytes) {
        return hex(purpose, scope.parts(), values(scope.parts(), request), bytes, scope.credentials());
    }

    /**
     * Each part's {@linkplain RequestValues#value value} in {@code request}, in the order of
     * {@code parts}: null where absent, a {@code byte[]}, or a {@code byte[][]} for a header on
     * several lines.
     */
    static Object[] values(List<RequestPart> parts, RequestView request) {
        Object[] values = new Object[parts.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = RequestValues.value(parts.get(i), request);
        }
        return values;
    }

    /**
     * As {@link #hex(String, List, RequestView, int)}, over values already taken by {@link #values};
     * {@code omitAbsent}: a part after the first that has no value is left out, label and all.
     */
    static String hex(String purpose, List<RequestPart> parts, Object[] values, int bytes, boolean omitAbsent) {
        MessageDigest d = sha256();
        d.update(label(purpose));
        byte[] frame = new byte[9];  // a marker and a length (or a count), in one update
        for (int i = 0; i < values.length; i++) {
            Object value = values[i];
            if (value == null && omitAbsent && i > 0) {
                continue;
            }
            d.update(label(parts.get(i)));
            if (value == null) {
                d.update((byte) 0);
            } else if (value instanceof byte[]) {
                byte[] one = (byte[]) value;
                frame[0] = 1;
                putLong(frame, 1, one.length);
                d.update(frame);
                d.update(one);
            } else {
                byte[][] lines = (byte[][]) value;
                frame[0] = 2;
                putLong(frame, 1, lines.length);
                d.update(frame);
                for (byte[] line : lines) {
                    putLong(frame, 1, line.length);
                    d.update(frame, 1, 8);
                    d.update(line);
                }
            }
        }
        byte[] digest = d.digest();
        return HEX.formatHex(digest, 0, Math.min(bytes, digest.length));
    }

    /**
     * A purpose's or a part's config spelling in UTF-8 followed by a zero byte, as {@link #hex}
     * hashes it: made once per spelling (a route table names a few), not per request.
     */
    private static byte[] label(Object spelled) {
        byte[] label = LABELS.get(spelled);
        if (label == null) {
            byte[] text = spelled.toString().getBytes(StandardCharsets.UTF_8);
            label = Arrays.copyOf(text, text.length + 1);
            if (LABELS.size() < MAX_LABELS) {  // config reloads may bring new parts; the old ones stay small
                LABELS.put(spelled, label);
            }
        }
        return label;
    }

    /**
     * A connection's last hash, remembered: an agent on a keep-alive connection sends the same
     * credentials with every request and the same body with every retry, so the last hash is
     * reused when the next request gives the same parts (the same route table, compared by
     * identity) the same inputs: the header lines, query, method and path strings, and for a body part
     * the body bytes (and, for {@code body}, the content type, which decides whether it is
     * canonicalised). Inputs are compared, never assumed, before any canonical JSON or SHA-256 is
     * made. Inputs over {@value #MAX_KEPT} bytes in all are not kept, so an idle connection holds
     * little. Not thread-safe: one instance per connection and purpose.
     */
    static final class Memo {
        static final int MAX_KEPT = 4096;

        private List<RequestPart> parts;
        private boolean omitAbsent;
        private Object[] inputs;
        private String hex;

        /** Equal to {@link PartHasher#hex(String, List, RequestView, int)} for the same purpose and length each call. */
        String hex(String purpose, List<RequestPart> parts, RequestView request, int bytes) {
            return hex(purpose, parts, false, request, bytes);
        }

        /** Equal to {@link PartHasher#hex(String, ScopePolicy, RequestView, int)} for the same purpose and length each call. */
        String hex(String purpose, ScopePolicy scope, RequestView request, int bytes) {
            return hex(purpose, scope.parts(), scope.credentials(), request, bytes);
        }

        private String hex(String purpose, List<RequestPart> parts, boolean omitAbsent, RequestView request, int bytes) {
            Object[] in = inputs(parts, request);
            if (parts == this.parts && omitAbsent == this.omitAbsent && Arrays.deepEquals(in, inputs)) {
                return hex;
            }
            String h = PartHasher.hex(purpose, parts, values(parts, request), bytes, omitAbsent);
            boolean keep = size(in) <= MAX_KEPT;
            this.parts = keep ? parts : null;
            this.omitAbsent = omitAbsent;
            this.inputs = keep ? in : null;
            this.hex = h;
            return h;
        }

        /** What each part's value is made from, two slots per part (the second is the content type of a body part). */
        private static Object[] inputs(List<RequestPart> parts, RequestView request) {
            Object[] in = new Object[parts.size() * 2];
            for (int i = 0; i < parts.size(); i++) {
                RequestPart part = parts.get(i);
                switch (part.kind()) {
                    case METHOD: in[2 * i] = request.method(); break;
                    case PATH: in[2 * i] = request.path(); break;
                    case HEADER: in[2 * i] = request.headerValues(part.name()); break;
                    case QUERY: in[2 * i] = request.queryParam(part.name()); break;
                    case BODY: in[2 * i] = request.body(); in[2 * i + 1] = request.contentType(); break;
                    default: in[2 * i] = request.body(); break;
                }
            }
            return in;
        }

        private static long size(Object[] inputs) {
            long n = 0;
            for (Object o : inputs) {
                if (o instanceof List) {
                    for (Object line : (List<?>) o) {
                        n += ((String) line).length();
                    }
                } else {
                    n += o instanceof byte[] ? ((byte[]) o).length : o == null ? 0 : ((String) o).length();
                }
            }
            return n;
        }
    }

    /** {@code v} big-endian into {@code out} from {@code at}. */
    private static void putLong(byte[] out, int at, long v) {
        for (int i = 0; i < 8; i++) {
            out[at + i] = (byte) (v >>> (56 - 8 * i));
        }
    }

    private static MessageDigest sha256() {
        try {
            return (MessageDigest) SHA_256.clone();
        } catch (CloneNotSupportedException e) {
            return lookUpSha256();
        }
    }

    private static MessageDigest lookUpSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
