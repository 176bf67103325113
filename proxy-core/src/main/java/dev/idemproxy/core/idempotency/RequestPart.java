package dev.idemproxy.core.idempotency;

import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.util.ProxyHeaders;

/**
 * A part of a request named in config: {@code method}, {@code path}, {@code body},
 * {@code header:NAME}, {@code query:NAME} or {@code body:/json/pointer}. This class is immutable.
 */
public record RequestPart(Kind kind, String name) {
    public enum Kind { METHOD, PATH, BODY, HEADER, QUERY, BODY_POINTER }

    public RequestPart {
        requireNonNull(kind, "kind");
        name = name == null ? "" : name;
    }

    /** Parses the config spelling; throws with an {@code (expected: …)} message. */
    public static RequestPart parse(String text) {
        requireNonNull(text, "text");
        switch (text) {
            case "method": return new RequestPart(Kind.METHOD, "");
            case "path": return new RequestPart(Kind.PATH, "");
            case "body": return new RequestPart(Kind.BODY, "");
            default: break;
        }
        int colon = text.indexOf(':');
        String prefix = colon < 0 ? text : text.substring(0, colon);
        String rest = colon < 0 ? "" : text.substring(colon + 1);
        String expected = " (expected: method, path, body, header:NAME, query:NAME or body:/json/pointer)";
        switch (prefix) {
            case "header":
                requireArgument(ProxyHeaders.isToken(rest), "'" + text + "' has no valid header name" + expected);
                return new RequestPart(Kind.HEADER, rest);
            case "query":
                requireArgument(!rest.isEmpty(), "'" + text + "' has no parameter name" + expected);
                return new RequestPart(Kind.QUERY, rest);
            case "body":
                requireArgument(rest.startsWith("/"), "'" + text + "' is not a JSON pointer" + expected);
                return new RequestPart(Kind.BODY_POINTER, rest);
            default:
                throw new IllegalArgumentException("'" + text + "' is not a request part" + expected);
        }
    }

    @Override
    public String toString() {
        switch (kind) {
            case METHOD: return "method";
            case PATH: return "path";
            case BODY: return "body";
            case HEADER: return "header:" + name;
            case QUERY: return "query:" + name;
            default: return "body:" + name;
        }
    }
}
