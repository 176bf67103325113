package dev.idemproxy.core.idempotency;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Canonical JSON, so that key order and whitespace never change a fingerprint or a derived key,
 * and RFC 6901 JSON-pointer look-ups ({@code body:/orderId}). The canonical form:
 * <ul>
 *   <li>object members sorted by name (UTF-16 code units, as RFC 8785), recursively;</li>
 *   <li>no insignificant whitespace;</li>
 *   <li>strings unescaped and re-escaped one way: {@code \"}, {@code \\}, the short escapes for
 *       control characters that have one, a six-character {@code u00XX} escape for the others,
 *       everything else as UTF-8;</li>
 *   <li>numbers by decimal value: {@code 1}, {@code 1.0}, {@code 1e0} and {@code 10E-1} are all
 *       {@code 1}; {@code -0} is {@code 0}; trailing fraction zeros are dropped; exponents beyond
 *       30 digits stay in scientific form ({@code 1E+400}), so huge exponents cost nothing.</li>
 * </ul>
 * A document with duplicate member names, trailing content or a syntax error is not JSON here
 * (the caller then hashes the raw bytes). Nesting and number length are bounded by Jackson's
 * default stream-read constraints. This class is stateless and thread-safe.
 */
public final class CanonicalJson {
    private static final JsonFactory FACTORY = JsonFactory.builder().build();
    private static final Object NULL = new Object();

    private CanonicalJson() {}

    /** True for {@code application/json}, {@code text/json} and any {@code …/…+json} media type. */
    public static boolean isJsonMediaType(String contentType) {
        if (contentType == null) {
            return false;
        }
        int semi = contentType.indexOf(';');
        String type = (semi < 0 ? contentType : contentType.substring(0, semi)).strip().toLowerCase(Locale.ROOT);
        int slash = type.indexOf('/');
        if (slash <= 0) {
            return false;
        }
        String subtype = type.substring(slash + 1);
        return subtype.equals("json") || subtype.endsWith("+json");
    }

    /**
     * The canonical form of a whole JSON document, or empty when it is not JSON. Plain documents
     * (see {@link PlainJson}) are written without the full parser; the result is the same.
     */
    public static Optional<byte[]> canonicalize(byte[] json) {
        byte[] plain = PlainJson.canonical(json);
        return plain != null ? Optional.of(plain) : canonicalizeFully(json);
    }

    /** {@link #canonicalize} with the full parser, whatever the document. */
    static Optional<byte[]> canonicalizeFully(byte[] json) {
        try (JsonParser p = parser(json)) {
            JsonToken t = p.nextToken();
            if (t == null) {
                return Optional.empty();
            }
            Object value = read(p, t);
            if (p.nextToken() != null) {
                return Optional.empty();
            }
            return Optional.of(write(value));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The canonical form of the value at {@code pointer} (RFC 6901, e.g. {@code /items/0/id}), or
     * empty when the body is not JSON up to that value, the pointer is invalid, or nothing is there.
     * The document is read only as far as the value.
     */
    public static Optional<byte[]> at(byte[] json, String pointer) {
        return valueAt(json, pointer).map(CanonicalJson::writeUnchecked);
    }

    /**
     * The value at {@code pointer} as text: a string as it is (unescaped), a number or boolean in
     * canonical form, an object or array as canonical JSON. JSON {@code null} counts as absent.
     */
    public static Optional<String> textAt(byte[] json, String pointer) {
        return valueAt(json, pointer).filter(v -> v != NULL)
                .map(v -> v instanceof String ? (String) v : new String(writeUnchecked(v), StandardCharsets.UTF_8));
    }

    private static Optional<Object> valueAt(byte[] json, String pointer) {
        JsonPointer ptr;
        try {
            ptr = JsonPointer.compile(pointer);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        try (JsonParser p = parser(json)) {
            JsonToken t = p.nextToken();
            while (t != null && !ptr.matches()) {
                t = step(p, t, ptr);
                ptr = ptr.tail();
            }
            return t == null ? Optional.empty() : Optional.of(read(p, t));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Moves from a container's start token to the start token of the member ptr names; null if none. */
    private static JsonToken step(JsonParser p, JsonToken t, JsonPointer ptr) throws IOException {
        if (t == JsonToken.START_OBJECT) {
            String name = ptr.getMatchingProperty();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                boolean match = name.equals(p.currentName());
                JsonToken v = p.nextToken();
                if (match) {
                    return v;
                }
                p.skipChildren();
            }
            return null;
        }
        if (t == JsonToken.START_ARRAY) {
            int index = ptr.getMatchingIndex();
            if (index < 0) {
                return null;
            }
            for (int i = 0; ; i++) {
                JsonToken v = p.nextToken();
                if (v == null || v == JsonToken.END_ARRAY) {
                    return null;
                }
                if (i == index) {
                    return v;
                }
                p.skipChildren();
            }
        }
        return null;
    }

    private static JsonParser parser(byte[] json) throws IOException {
        JsonParser p = FACTORY.createParser(json);
        p.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        return p;
    }

    /** Reads the value starting at token t: TreeMap, List, String, BigDecimal, Boolean or NULL. */
    private static Object read(JsonParser p, JsonToken t) throws IOException {
        switch (t) {
            case START_OBJECT: {
                Map<String, Object> members = new TreeMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    members.put(name, read(p, p.nextToken()));
                }
                return members;
            }
            case START_ARRAY: {
                List<Object> items = new ArrayList<>();
                JsonToken v;
                while ((v = p.nextToken()) != JsonToken.END_ARRAY) {
                    items.add(read(p, v));
                }
                return items;
            }
            case VALUE_STRING:
                return p.getText();
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return new BigDecimal(p.getText());
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return NULL;
            default:
                throw new IOException("unexpected token " + t);
        }
    }

    private static byte[] writeUnchecked(Object value) {
        try {
            return write(value);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] write(Object value) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            write(g, value);
        }
        return out.toByteArray();
    }

    @SuppressWarnings("unchecked")
    private static void write(JsonGenerator g, Object value) throws IOException {
        if (value instanceof Map) {
            g.writeStartObject();
            for (Map.Entry<String, Object> e : ((Map<String, Object>) value).entrySet()) {
                g.writeFieldName(e.getKey());
                write(g, e.getValue());
            }
            g.writeEndObject();
        } else if (value instanceof List) {
            g.writeStartArray();
            for (Object item : (List<Object>) value) {
                write(g, item);
            }
            g.writeEndArray();
        } else if (value instanceof String) {
            g.writeString((String) value);
        } else if (value instanceof BigDecimal) {
            g.writeNumber(number((BigDecimal) value));
        } else if (value instanceof Boolean) {
            g.writeBoolean((Boolean) value);
        } else {
            g.writeNull();
        }
    }

    /** A number's canonical text; see the class comment. */
    static String number(BigDecimal n) {
        if (n.signum() == 0) {
            return "0";
        }
        BigDecimal s = n.stripTrailingZeros();
        int scale = s.scale();
        int intDigits = s.precision() - scale;
        if (scale <= 0 ? intDigits <= 30 : scale <= 30) {
            return s.toPlainString();
        }
        return s.toString();
    }
}
