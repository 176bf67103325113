package dev.idemproxy.core.mcp;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Byte spans of JSON values read with Jackson's streaming parser over a {@code byte[]}: where a
 * value starts and ends in the input, so a value can be echoed or replaced exactly as it was
 * sent, without serialising it again. This class is stateless and thread-safe.
 */
final class JsonSpans {
    /** Strict: a document with a duplicate member name is not read (two readers could disagree on it). */
    static final JsonFactory FACTORY = JsonFactory.builder().enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    private JsonSpans() {}

    static JsonParser parser(byte[] json) throws IOException {
        return FACTORY.createParser(json);
    }

    static JsonParser parser(byte[] json, int offset, int length) throws IOException {
        return FACTORY.createParser(json, offset, length);
    }

    /**
     * The end offset (exclusive) of the value whose first token {@code t} the parser has just
     * returned, leaving the parser on the value's last token. Its start is
     * {@link #start(JsonParser)}, read before this call.
     */
    static int end(JsonParser p, JsonToken t) throws IOException {
        if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
            p.skipChildren();
        } else {
            p.finishToken();
        }
        return (int) p.currentLocation().getByteOffset();
    }

    /** The start offset of the token the parser has just returned. */
    static int start(JsonParser p) {
        return (int) p.currentTokenLocation().getByteOffset();
    }

    static String text(byte[] json, int start, int end) {
        return new String(json, start, end - start, StandardCharsets.UTF_8);
    }

    static byte[] slice(byte[] json, int start, int end) {
        return Arrays.copyOfRange(json, start, end);
    }
}
