package dev.idemproxy.core.mcp;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * A replay of a stored {@code tools/call} answer to a duplicate (docs/mcp.md): the stored final
 * JSON-RPC response with its {@code id} replaced by the duplicate's own id, and nothing else
 * changed: the bytes before and after the id's value are copied as they are (the parser's token
 * offsets say where the value lies), so no re-serialisation can reorder or re-escape the
 * result. Answered as {@code application/json} with {@code Idempotent-Replayed: true}; the
 * first call's {@code Mcp-Session-Id} (and any other header of the stored answer) is not
 * replayed, since the duplicate may belong to another session or to none. This class is
 * stateless and thread-safe.
 */
public final class McpReplay {
    public static final String CONTENT_TYPE = "application/json";
    /** Headers of the stored answer that a replay never carries. */
    public static final List<String> NOT_REPLAYED = List.of("Mcp-Session-Id", "Content-Type", "Content-Length", "Transfer-Encoding");

    private McpReplay() {}

    /**
     * The stored response with {@code rawId} as its id; empty when {@code stored} is not a
     * JSON-RPC response (then it must not be replayed as one).
     *
     * @param stored the stored final JSON-RPC response
     * @param rawId  the duplicate's id exactly as it sent it (raw JSON)
     */
    public static Optional<byte[]> withId(byte[] stored, String rawId) {
        requireNonNull(stored, "stored");
        requireNonNull(rawId, "rawId");
        return JsonRpcResponse.read(stored).map(r -> {
            byte[] id = rawId.getBytes(StandardCharsets.UTF_8);
            if (r.idStart() >= 0) {
                return splice(stored, r.idStart(), r.idEnd(), id);
            }
            int open = indexOfOpenBrace(stored);
            // No id member at all: put one first (the object has a result or an error after it).
            byte[] member = ("\"id\":" + rawId + ",").getBytes(StandardCharsets.UTF_8);
            return splice(stored, open + 1, open + 1, member);
        });
    }

    private static byte[] splice(byte[] a, int from, int to, byte[] insert) {
        byte[] out = new byte[a.length - (to - from) + insert.length];
        System.arraycopy(a, 0, out, 0, from);
        System.arraycopy(insert, 0, out, from, insert.length);
        System.arraycopy(a, to, out, from + insert.length, a.length - to);
        return out;
    }

    private static int indexOfOpenBrace(byte[] a) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] == '{') {
                return i;
            }
        }
        throw new IllegalStateException("a JSON-RPC response without '{'");
    }
}
