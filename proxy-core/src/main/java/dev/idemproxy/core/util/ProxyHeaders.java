package dev.idemproxy.core.util;

import io.netty.handler.codec.DefaultHeaders.NameValidator;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.util.AsciiString;

/**
 * The header names the proxy adds to forwarded requests, and the check of a header name
 * (RFC 9110 §5.1: a token of at least one character) for the header maps of both HTTP legs,
 * decoded or written. The check accepts and refuses exactly what Netty's default one does, with
 * the same exception type, so a bad name on the wire is still a decoder failure (400 for a
 * client, a malformed response from an upstream). It costs less on every proxied request: names
 * the proxy itself sets are constants, valid by construction and recognised by identity; other
 * names take one table look-up per character.
 * This class is stateless.
 */
public final class ProxyHeaders implements NameValidator<CharSequence> {
    /** The headers of a protected call (docs/http-reference.md), set by the proxy. */
    public static final AsciiString X_CALL_ID = AsciiString.cached("X-Call-Id");
    public static final AsciiString X_ATTEMPT = AsciiString.cached("X-Attempt");
    public static final AsciiString X_ATTEMPTS = AsciiString.cached("X-Attempts");
    public static final AsciiString X_REQUEST_TIMEOUT_MS = AsciiString.cached("X-Request-Timeout-Ms");
    /** The caller's deadline as epoch milliseconds (docs/http-reference.md); never forwarded. */
    public static final AsciiString X_REQUEST_DEADLINE = AsciiString.cached("X-Request-Deadline");
    public static final AsciiString IDEMPOTENT_REPLAYED = AsciiString.cached("Idempotent-Replayed");
    /** Retries the call's task has left in its window (docs/http-reference.md); never stored for replay. */
    public static final AsciiString X_RETRY_BUDGET_REMAINING = AsciiString.cached("X-Retry-Budget-Remaining");
    public static final AsciiString X_FORWARDED_FOR = AsciiString.cached("x-forwarded-for");
    public static final AsciiString X_FORWARDED_PROTO = AsciiString.cached("x-forwarded-proto");
    public static final AsciiString X_FORWARDED_HOST = AsciiString.cached("x-forwarded-host");

    public static final ProxyHeaders NAME_CHECK = new ProxyHeaders();

    /** Headers as both codecs create them, with this check in place of Netty's. */
    public static final HttpHeadersFactory HEADERS = DefaultHttpHeadersFactory.headersFactory().withNameValidator(NAME_CHECK);

    /**
     * Trailers as both codecs create them: Netty's trailer checks, in the smallest map it makes
     * (a decoder makes one for every request and response, and nearly all stay empty).
     */
    public static final HttpHeadersFactory TRAILERS = new HttpHeadersFactory() {
        private final DefaultHttpHeadersFactory netty = DefaultHttpHeadersFactory.trailersFactory();

        @Override
        public HttpHeaders newHeaders() {
            return netty.newEmptyHeaders();
        }

        @Override
        public HttpHeaders newEmptyHeaders() {
            return netty.newEmptyHeaders();
        }
    };

    /** The text of the numbers most header values are (lengths, attempts, budgets), made once. */
    private static final String[] NUMBERS = new String[1024];

    private static final boolean[] TOKEN = new boolean[256];

    static {
        for (int i = 0; i < NUMBERS.length; i++) {
            NUMBERS[i] = Integer.toString(i);
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            TOKEN[c] = true;
        }
        for (char c = '0'; c <= '9'; c++) {
            TOKEN[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            TOKEN[c] = true;
            TOKEN[c - 'a' + 'A'] = true;
        }
    }

    /**
     * Names the proxy sets on the hot path; each is checked once below, when this class loads,
     * so a wrong constant fails at start instead of passing unchecked.
     */
    private static final AsciiString[] TRUSTED = {
        HttpHeaderNames.HOST, HttpHeaderNames.CONTENT_LENGTH, HttpHeaderNames.TRANSFER_ENCODING,
        HttpHeaderNames.CONNECTION, HttpHeaderNames.CONTENT_TYPE,
        X_FORWARDED_FOR, X_FORWARDED_PROTO, X_FORWARDED_HOST,
        X_CALL_ID, X_ATTEMPT, X_ATTEMPTS, IDEMPOTENT_REPLAYED, X_REQUEST_TIMEOUT_MS, X_RETRY_BUDGET_REMAINING,
    };

    static {
        for (AsciiString name : TRUSTED) {
            NAME_CHECK.checkAll(name);
        }
    }

    private ProxyHeaders() {}

    @Override
    public void validateName(CharSequence name) {
        if (name instanceof AsciiString) {
            for (AsciiString t : TRUSTED) {
                if (t == name) {
                    return;
                }
            }
        }
        checkAll(name);
    }

    /** Whether {@code name} is a header name: a token of at least one character. */
    public static boolean isToken(CharSequence name) {
        return name != null && name.length() > 0 && firstNonToken(name) < 0;
    }

    /** The character-by-character check, without the identity shortcut. */
    void checkAll(CharSequence name) {
        if (name == null || name.length() == 0) {
            throw new IllegalArgumentException("empty headers are not allowed [" + name + ']');
        }
        int bad = firstNonToken(name);
        if (bad >= 0) {
            throw invalid(name, bad);
        }
    }

    /** The index of the first character of {@code name} that is not a token character, or -1. */
    private static int firstNonToken(CharSequence name) {
        int length = name.length();
        if (name instanceof AsciiString) {
            AsciiString a = (AsciiString) name;
            byte[] bytes = a.array();
            int start = a.arrayOffset();
            for (int i = 0; i < length; i++) {
                if (!TOKEN[bytes[start + i] & 0xff]) {
                    return i;
                }
            }
            return -1;
        }
        for (int i = 0; i < length; i++) {
            char c = name.charAt(i);
            if (c > 0xff || !TOKEN[c]) {
                return i;
            }
        }
        return -1;
    }

    private static IllegalArgumentException invalid(CharSequence name, int index) {
        return new IllegalArgumentException("a header name can only contain \"token\" characters, but found invalid character 0x"
                + Integer.toHexString(name.charAt(index)) + " at index " + index + " of header '" + name + "'.");
    }

    /** {@code v} as a header value: its decimal text, shared for the small numbers most values are. */
    public static String number(long v) {
        return v >= 0 && v < NUMBERS.length ? NUMBERS[(int) v] : Long.toString(v);
    }
}
