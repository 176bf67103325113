package dev.idemproxy.core.mcp;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.idempotency.ClientKeys;
import dev.idemproxy.core.idempotency.Fingerprint;
import dev.idemproxy.core.idempotency.KeyResolution;
import dev.idemproxy.core.idempotency.RequestView;
import dev.idemproxy.core.idempotency.StoredKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Key and fingerprint of a protected {@code tools/call} (docs/mcp.md). The key is the client's
 * {@code Idempotency-Key} (the route's {@code idempotency.key.header}) when sent, validated as on
 * any route; else a derived key {@code d:<32 hex>} over the request path, the tool name and the
 * canonical arguments, which the claimer honours within {@code mcp.window}
 * ({@link KeyResolution#derived()}). The fingerprint is SHA-256 over the same three. The JSON-RPC
 * {@code id}, {@code params._meta}, {@code Mcp-Session-Id} and {@code MCP-Protocol-Version} enter
 * neither, so a retry from a new session, with a new id, is a duplicate. The path (the MCP
 * endpoint, normalised) is in both so two MCP servers behind one route never share a record,
 * and a client key reused on another endpoint gets 422 as on any route (§12). Each is hashed
 * under its own purpose, so no MCP key or fingerprint can equal one of a plain HTTP request.
 * This class is stateless and thread-safe; a {@link Memo} is not.
 */
public final class McpKeys {
    static final String KEY_PURPOSE = "idemproxy-mcp-key-v1";
    static final String FINGERPRINT_PURPOSE = "idemproxy-mcp-fingerprint-v1";
    private static final HexFormat HEX = HexFormat.of();
    private static final MessageDigest SHA_256 = lookUpSha256();

    private McpKeys() {}

    /** The call's key: the client's (CLIENT, or BAD when malformed) or derived (DERIVED). */
    public static KeyResolution resolve(String keyHeader, RequestView request, McpToolCall call) {
        requireNonNull(call, "call");
        KeyResolution client = ClientKeys.read(keyHeader, request);
        if (client != null) {
            return client;
        }
        String key = derivedKey(request.path(), call);
        return new KeyResolution(KeyResolution.Kind.DERIVED, key, key, null);
    }

    /** The call's fingerprint: path, tool name and canonical arguments. */
    public static Fingerprint fingerprint(RequestView request, McpToolCall call) {
        requireNonNull(request, "request");
        requireNonNull(call, "call");
        return new Fingerprint(HEX.formatHex(hash(FINGERPRINT_PURPOSE, request.path(), call)));
    }

    private static String derivedKey(String path, McpToolCall call) {
        return StoredKey.Origin.DERIVED.stored(HEX.formatHex(hash(KEY_PURPOSE, path, call), 0, 16));
    }

    /**
     * A connection's keys and fingerprints, remembered: an agent that retries a tool call on the
     * same keep-alive connection sends the same tool and arguments again (with another id), and
     * then neither is hashed again, as {@code Fingerprint.Memo} spares a plain POST's retry.
     * Equal to {@link McpKeys#resolve} and {@link McpKeys#fingerprint}. Not thread-safe: one
     * instance per connection.
     */
    public static final class Memo {
        private String path;
        private String tool;
        private byte[] arguments;
        private String key;
        private Fingerprint fingerprint;

        public KeyResolution resolve(String keyHeader, RequestView request, McpToolCall call) {
            requireNonNull(call, "call");
            KeyResolution client = ClientKeys.read(keyHeader, request);
            if (client != null) {
                return client;
            }
            remember(request.path(), call);
            if (key == null) {
                key = derivedKey(path, call);
            }
            return new KeyResolution(KeyResolution.Kind.DERIVED, key, key, null);
        }

        public Fingerprint fingerprint(RequestView request, McpToolCall call) {
            requireNonNull(call, "call");
            remember(request.path(), call);
            if (fingerprint == null) {
                fingerprint = McpKeys.fingerprint(request, call);
            }
            return fingerprint;
        }

        private void remember(String p, McpToolCall call) {
            if (!p.equals(path) || !call.tool().equals(tool) || !java.util.Arrays.equals(call.canonicalArguments(), arguments)) {
                path = p;
                tool = call.tool();
                arguments = call.canonicalArguments();
                key = null;
                fingerprint = null;
            }
        }
    }

    /** SHA-256 over the purpose and each part, every part length-prefixed so no two splits collide. */
    private static byte[] hash(String purpose, String path, McpToolCall call) {
        MessageDigest d = sha256();
        part(d, purpose.getBytes(StandardCharsets.UTF_8));
        part(d, path.getBytes(StandardCharsets.UTF_8));
        part(d, call.tool().getBytes(StandardCharsets.UTF_8));
        part(d, call.canonicalArguments());
        return d.digest();
    }

    private static void part(MessageDigest d, byte[] bytes) {
        int n = bytes.length;
        d.update(new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
        d.update(bytes);
    }

    private static MessageDigest sha256() {
        try {
            return (MessageDigest) SHA_256.clone();  // cheaper than a provider look-up per hash
        } catch (CloneNotSupportedException e) {
            return lookUpSha256();
        }
    }

    private static MessageDigest lookUpSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
