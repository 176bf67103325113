package dev.idemproxy.core.idempotency;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.UUID;
import java.util.random.RandomGenerator;

/**
 * Finds a protected call's idempotency key (docs/configuration.md {@code idempotency.key}, §5), first
 * found wins:
 * <ol>
 *   <li>the client's {@code key.header}, on exactly one header line (two lines are two keys, as a
 *       comma would be): a bare value of visible ASCII (no {@code "}, {@code \}
 *       or {@code ,}: a comma means two header lines were joined) or an RFC 8941 sf-string ({@code "…"} with {@code \"} and {@code \\}
 *       escapes, printable ASCII inside); 1 to 255 characters once unquoted. Anything else is
 *       {@code BAD} (400 {@code bad-request}), never silently replaced;</li>
 *   <li>a derived key {@code d:<32 hex>} from {@code key.derive}, when at least one
 *       request-specific part (a header, a query parameter, a non-empty body or a body pointer)
 *       has a value — method and path alone would make every call to the path one duplicate;</li>
 *   <li>{@code required: true}: {@code MISSING} (400 {@code missing-idempotency-key});</li>
 *   <li>a generated key {@code g:<uuid>}, so the proxy's own retries still carry a key.</li>
 * </ol>
 *
 * <p><b>Derive window.</b> A derived key is time-free: the same parts always give the same key.
 * "The same parts within {@code key.window} of the first call are duplicates" is enforced at
 * claim time by the record's creation time: a completed record of a derived key created more
 * than {@code window} ago is treated as absent by the claimer (and overwritten), so there are no
 * fixed time buckets that would split two calls a second apart. {@link KeyResolution#derived()}
 * tells the claimer to apply the window.
 *
 * <p>This class is immutable and thread-safe when its random source is.
 */
public final class KeyResolver {
    static final int MAX_KEY_LENGTH = 255;
    static final String DERIVE_PURPOSE = "idemproxy-derive-v1";
    private static final String EXPECTED =
            " (expected: 1-255 visible ASCII characters, bare or as an RFC 8941 quoted string)";

    private final KeyPolicy policy;
    private final RandomGenerator random;

    public KeyResolver(KeyPolicy policy, RandomGenerator random) {
        this.policy = requireNonNull(policy, "policy");
        this.random = requireNonNull(random, "random");
    }

    /** The key of {@code request}. */
    public KeyResolution resolve(RequestView request) {
        requireNonNull(request, "request");
        String sent = request.header(policy.header());
        if (sent != null) {
            int lines = request.headerLines(policy.header());
            if (lines > 1) {
                return bad(policy.header() + " was sent on " + lines + " header lines (expected: one key on one line)");
            }
            return parseClientKey(policy.header(), sent);
        }
        if (!policy.derive().isEmpty() && distinguishes(policy.derive(), request)) {
            String key = StoredKey.Origin.DERIVED.stored(PartHasher.hex(DERIVE_PURPOSE, policy.derive(), request, 16));
            return new KeyResolution(KeyResolution.Kind.DERIVED, key, key, null);
        }
        if (policy.required()) {
            return new KeyResolution(KeyResolution.Kind.MISSING, null, null,
                    "No " + policy.header() + " header and nothing to derive a key from");
        }
        String key = StoredKey.Origin.GENERATED.stored(uuid().toString());
        return new KeyResolution(KeyResolution.Kind.GENERATED, key, key, null);
    }

    /** Validates and unquotes a client's key header value. */
    static KeyResolution parseClientKey(String header, String raw) {
        String v = raw.strip();
        String key;
        if (v.startsWith("\"")) {
            key = unquote(v);
            if (key == null) {
                return bad(header + " is not a valid RFC 8941 string" + EXPECTED);
            }
        } else {
            for (int i = 0; i < v.length(); i++) {
                char c = v.charAt(i);
                if (c < 0x21 || c > 0x7e || c == '"' || c == '\\' || c == ',') {
                    return bad(header + " contains a character that is not allowed at index " + i + EXPECTED);
                }
            }
            key = v;
        }
        if (key.isEmpty()) {
            return bad(header + " is empty" + EXPECTED);
        }
        if (key.length() > MAX_KEY_LENGTH) {
            return bad(header + " has " + key.length() + " characters" + EXPECTED);
        }
        return new KeyResolution(KeyResolution.Kind.CLIENT, key, v, null);
    }

    /** The content of an RFC 8941 sf-string, or null if {@code v} is not exactly one. */
    private static String unquote(String v) {
        StringBuilder b = new StringBuilder(v.length());
        for (int i = 1; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == '\\') {
                if (++i == v.length()) {
                    return null;
                }
                char e = v.charAt(i);
                if (e != '"' && e != '\\') {
                    return null;
                }
                b.append(e);
            } else if (c == '"') {
                return i == v.length() - 1 ? b.toString() : null;
            } else if (c < 0x20 || c > 0x7e) {
                return null;
            } else {
                b.append(c);
            }
        }
        return null;
    }

    private static boolean distinguishes(List<RequestPart> parts, RequestView request) {
        for (RequestPart part : parts) {
            switch (part.kind()) {
                case METHOD:
                case PATH:
                    break;
                case BODY:
                    if (request.body().length > 0) {
                        return true;
                    }
                    break;
                default:
                    if (RequestValues.value(part, request) != null) {
                        return true;
                    }
            }
        }
        return false;
    }

    private UUID uuid() {
        long msb = (random.nextLong() & ~0xF000L) | 0x4000L;
        long lsb = (random.nextLong() & ~(0xC000_0000_0000_0000L)) | 0x8000_0000_0000_0000L;
        return new UUID(msb, lsb);
    }

    private static KeyResolution bad(String detail) {
        return new KeyResolution(KeyResolution.Kind.BAD, null, null, detail);
    }
}
