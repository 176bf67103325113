package dev.idemproxy.core.mcp;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.idempotency.RequestView;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * The sessionless generation's mirrored headers (MCP 2026-07-28, Streamable HTTP "Request
 * Metadata"): {@code Mcp-Method} mirrors the body's {@code method}, {@code Mcp-Name} its
 * {@code params.name} ({@code tools/call}, {@code prompts/get}) or {@code params.uri}
 * ({@code resources/read}), Base64-encoded as {@code =?base64?…?=} when the value is not plain
 * ASCII. The spec: "Servers that process the request body MUST reject requests where the values
 * specified in the headers do not match the corresponding values in the request body", with
 * 400 and JSON-RPC error {@code -32020} (HeaderMismatch); a missing required header is such a
 * failure too. The proxy reads the body of a {@code tools/call} to decide its protection, so it
 * checks that request before acting on it: it keys on the body, never on a header, and a
 * request whose headers disagree with its body is rejected rather than forwarded. Headers are
 * required only when {@code MCP-Protocol-Version} names 2026-07-28 or later; older clients never
 * send them. Header values are compared case-sensitively. This class is stateless and thread-safe.
 */
public final class McpHeaderCheck {
    public static final String METHOD_HEADER = "Mcp-Method";
    public static final String NAME_HEADER = "Mcp-Name";
    public static final String VERSION_HEADER = "MCP-Protocol-Version";
    /** The first protocol revision that mirrors the body into headers. */
    public static final String SESSIONLESS_VERSION = "2026-07-28";
    /** MCP's HeaderMismatch error code. */
    public static final int HEADER_MISMATCH = -32020;

    private static final String B64_PREFIX = "=?base64?";
    private static final String B64_SUFFIX = "?=";

    private McpHeaderCheck() {}

    /** True when the request's protocol version is of the sessionless generation (2026-07-28 or later). */
    public static boolean isSessionless(RequestView request) {
        String v = request.header(VERSION_HEADER);
        return v != null && v.strip().compareTo(SESSIONLESS_VERSION) >= 0;
    }

    /**
     * Why the mirrored headers of {@code request} disagree with {@code message}, or empty when
     * they agree (or the message is not a tools/call, whose body the proxy does not act on).
     */
    public static Optional<String> mismatch(RequestView request, McpMessage message) {
        requireNonNull(request, "request");
        requireNonNull(message, "message");
        if (!message.isToolCall()) {
            return Optional.empty();
        }
        boolean required = isSessionless(request);
        if (request.headerLines(METHOD_HEADER) > 1 || request.headerLines(NAME_HEADER) > 1) {
            return Optional.of("Mcp-Method and Mcp-Name must each be sent once");
        }
        String method = request.header(METHOD_HEADER);
        if (method == null) {
            if (required) {
                return Optional.of("Mcp-Method header is missing (required from " + SESSIONLESS_VERSION + ")");
            }
        } else if (!method.strip().equals(message.method())) {
            return Optional.of("Mcp-Method header value '" + method.strip() + "' does not match body value '" + message.method() + "'");
        }
        String name = request.header(NAME_HEADER);
        if (name == null) {
            return required ? Optional.of("Mcp-Name header is missing (required for tools/call from " + SESSIONLESS_VERSION + ")")
                    : Optional.empty();
        }
        String decoded = decode(name.strip());
        if (decoded == null) {
            return Optional.of("Mcp-Name header is not valid =?base64?…?= UTF-8");
        }
        String tool = message.toolCall().tool();
        if (!decoded.equals(tool)) {
            return Optional.of("Mcp-Name header value '" + printable(decoded) + "' does not match body value '" + printable(tool) + "'");
        }
        return Optional.empty();
    }

    /** A header value with the Base64 sentinel decoded; null when the encoding is broken. */
    static String decode(String value) {
        if (!value.startsWith(B64_PREFIX) || !value.endsWith(B64_SUFFIX) || value.length() < B64_PREFIX.length() + B64_SUFFIX.length()) {
            return value;
        }
        String b64 = value.substring(B64_PREFIX.length(), value.length() - B64_SUFFIX.length());
        try {
            byte[] bytes = Base64.getDecoder().decode(b64);
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (IllegalArgumentException | CharacterCodingException e) {
            return null;
        }
    }

    /** At most 64 characters, control characters escaped: the value goes into an error message. */
    static String printable(String s) {
        StringBuilder b = new StringBuilder();
        int i = 0;
        for (; i < s.length() && i < 64; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || c == '\u2028' || c == '\u2029') {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return i < s.length() ? b.append('…').toString() : b.toString();
    }
}
