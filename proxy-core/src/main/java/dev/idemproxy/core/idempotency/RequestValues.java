package dev.idemproxy.core.idempotency;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * The value each configured {@link RequestPart} takes in a request: bytes for hashing (scope,
 * fingerprint, derived keys; a header on several lines gives every line, in order) and text for
 * business ids ({@code ids.bizId}; a header's first line). A {@code body} part is canonical JSON
 * when the content type is JSON and the body parses, else the raw bytes; a
 * {@code body:/pointer} part is the canonical JSON of the value there, whatever the content type.
 * This class is stateless and thread-safe.
 */
public final class RequestValues {
    private RequestValues() {}

    /**
     * What a part contributes to a hash: null when the request has no such part, else its bytes
     * ({@code byte[]}), except for a header sent on several lines: each line's bytes in the order
     * sent ({@code byte[][]}), which {@link PartHasher} frames apart from any single line.
     */
    static Object value(RequestPart part, RequestView request) {
        switch (part.kind()) {
            case METHOD:
                return utf8(request.method());
            case PATH:
                return utf8(request.path());
            case HEADER:
                return header(request.headerValues(part.name()));
            case QUERY:
                return utf8(request.queryParam(part.name()));
            case BODY:
                return body(request);
            default:
                return CanonicalJson.at(request.body(), part.name()).orElse(null);
        }
    }

    /** A header's lines as hashed: null, one line's bytes, or every line's. */
    static Object header(List<String> lines) {
        switch (lines.size()) {
            case 0:
                return null;
            case 1:
                return utf8(lines.get(0));
            default:
                byte[][] each = new byte[lines.size()][];
                for (int i = 0; i < each.length; i++) {
                    each[i] = utf8(lines.get(i));
                }
                return each;
        }
    }

    /** The body as hashed: canonical JSON for a JSON content type that parses, else as sent. */
    static byte[] body(RequestView request) {
        byte[] body = request.body();
        if (body.length > 0 && CanonicalJson.isJsonMediaType(request.contentType())) {
            return CanonicalJson.canonicalize(body).orElse(body);
        }
        return body;
    }

    /**
     * The text of a part: a header's value (its first line's) or a query value, the method or
     * path, the body as UTF-8, or the value at a JSON pointer (a string as it is, other values as
     * canonical JSON). Empty when absent or blank.
     */
    public static Optional<String> text(RequestPart part, RequestView request) {
        requireNonNull(part, "part");
        requireNonNull(request, "request");
        String text;
        switch (part.kind()) {
            case METHOD: text = request.method(); break;
            case PATH: text = request.path(); break;
            case HEADER: text = request.header(part.name()); break;
            case QUERY: text = request.queryParam(part.name()); break;
            case BODY: text = new String(request.body(), StandardCharsets.UTF_8); break;
            default: text = CanonicalJson.textAt(request.body(), part.name()).orElse(null); break;
        }
        return Optional.ofNullable(text).filter(t -> !t.isBlank());
    }

    /** The first part that has a text value, e.g. {@code ids.bizId: [header:X-Biz-Id, body:/orderId]}. */
    public static Optional<String> firstText(List<RequestPart> parts, RequestView request) {
        for (RequestPart part : parts) {
            Optional<String> t = text(part, request);
            if (t.isPresent()) {
                return t;
            }
        }
        return Optional.empty();
    }

    /**
     * A header value as text (CONTRACT §12: identifiers are read as UTF-8). The HTTP codec gives
     * a header's bytes as ISO-8859-1 characters, one per byte; a value with bytes above 0x7F is
     * decoded again as the UTF-8 clients send, a malformed sequence becoming U+FFFD. A value of
     * ASCII only (or one holding a character no byte makes) comes back as it is, without copying.
     */
    public static String headerText(String latin1) {
        if (latin1 == null) {
            return null;
        }
        boolean high = false;
        for (int i = 0, n = latin1.length(); i < n; i++) {
            char c = latin1.charAt(i);
            if (c > 0xFF) {
                return latin1;
            }
            high |= c > 0x7F;
        }
        return high ? new String(latin1.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8) : latin1;
    }

    private static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }
}
