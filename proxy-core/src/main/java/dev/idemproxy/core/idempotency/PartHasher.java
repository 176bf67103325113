package dev.idemproxy.core.idempotency;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * SHA-256 over request parts, unambiguous by construction: a purpose label, then for each part
 * its config spelling and either an absent marker or its length and bytes. So {@code [a, bc]}
 * never hashes like {@code [ab, c]}, an absent header never like an empty one, and a scope never
 * like a fingerprint of the same parts. Stateless and thread-safe.
 */
final class PartHasher {
    private static final HexFormat HEX = HexFormat.of();
    /** Looked up once: a provider lookup per call cost more than hashing a small request. */
    private static final MessageDigest SHA_256 = lookUpSha256();

    private PartHasher() {}

    /** Hex of the first {@code bytes} bytes of the digest (at most 32). */
    static String hex(String purpose, List<RequestPart> parts, RequestView request, int bytes) {
        return hex(purpose, parts, values(parts, request), bytes);
    }

    /** Each part's value in {@code request} (null where absent), in the order of {@code parts}. */
    static byte[][] values(List<RequestPart> parts, RequestView request) {
        byte[][] values = new byte[parts.size()][];
        for (int i = 0; i < values.length; i++) {
            values[i] = RequestValues.bytes(parts.get(i), request);
        }
        return values;
    }

    /** As {@link #hex(String, List, RequestView, int)}, over values already taken by {@link #values}. */
    static String hex(String purpose, List<RequestPart> parts, byte[][] values, int bytes) {
        MessageDigest d = sha256();
        d.update(purpose.getBytes(StandardCharsets.UTF_8));
        d.update((byte) 0);
        for (int i = 0; i < values.length; i++) {
            d.update(parts.get(i).toString().getBytes(StandardCharsets.UTF_8));
            d.update((byte) 0);
            byte[] value = values[i];
            if (value == null) {
                d.update((byte) 0);
            } else {
                d.update((byte) 1);
                updateLong(d, value.length);
                d.update(value);
            }
        }
        byte[] digest = d.digest();
        return HEX.formatHex(digest, 0, Math.min(bytes, digest.length));
    }

    private static void updateLong(MessageDigest d, long v) {
        for (int shift = 56; shift >= 0; shift -= 8) {
            d.update((byte) (v >>> shift));
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
