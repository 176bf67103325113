package dev.idemproxy.core.idempotency;

import java.util.Arrays;

/**
 * The canonical form of the JSON that agents send most: objects, arrays, ASCII strings without
 * escapes, integers of up to 18 digits, {@code true}, {@code false}, {@code null}, whitespace
 * anywhere JSON allows it. On that subset the canonical form is easy to write by hand: members
 * sorted by name (ASCII, so byte order is UTF-16 order), no whitespace, strings and integers as
 * sent ({@code -0} as {@code 0}). Anything else (an escape, a non-ASCII or control byte, a
 * string over {@value #MAX_STRING_BYTES} bytes, a fraction or exponent, a long number, duplicate
 * names, deep nesting, trailing content, a syntax error) returns null and {@link CanonicalJson} decides with its full parser, so the result is
 * the same byte for byte; this only spares the common case Jackson's parser, its tree of
 * {@code TreeMap}s and {@code BigDecimal}s and its generator. Stateless and thread-safe.
 */
final class PlainJson {
    /** Deeper documents go to the full parser (whose limit is higher). */
    private static final int MAX_DEPTH = 64;
    private static final int MAX_INT_DIGITS = 18;
    /** Objects with at most this many names have them sorted by insertion (see {@link #sortedNames}). */
    private static final int INSERTION_SORT_MAX = 16;
    /**
     * Longer strings go to the full parser, whose limits (a name of at most 50,000 characters, a
     * string of at most 20,000,000, Jackson's defaults) then decide, as they would without this.
     */
    private static final int MAX_STRING_BYTES = 1000;
    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};

    private final byte[] in;
    private int pos;

    private PlainJson(byte[] in) {
        this.in = in;
    }

    /** The canonical form of {@code json}, or null when it is not plain (see the class comment). */
    static byte[] canonical(byte[] json) {
        PlainJson p = new PlainJson(json);
        p.skipWhitespace();
        byte[] value = p.value(0);
        if (value == null) {
            return null;
        }
        p.skipWhitespace();
        if (p.pos != json.length) {
            return null;
        }
        return value == TRUE || value == FALSE || value == NULL ? value.clone() : value;  // never hand out a constant
    }

    private byte[] value(int depth) {
        if (pos >= in.length || depth > MAX_DEPTH) {
            return null;
        }
        switch (in[pos]) {
            case '{':
                return object(depth);
            case '[':
                return array(depth);
            case '"':
                int start = pos;
                return string() ? Arrays.copyOfRange(in, start, pos) : null;
            case 't':
                return literal(TRUE);
            case 'f':
                return literal(FALSE);
            case 'n':
                return literal(NULL);
            default:
                return integer();
        }
    }

    private byte[] object(int depth) {
        pos++;  // '{'
        skipWhitespace();
        if (pos < in.length && in[pos] == '}') {
            pos++;
            return new byte[] {'{', '}'};
        }
        int n = 0;
        int[] keyStart = new int[8];
        int[] keyEnd = new int[8];
        byte[][] values = new byte[8][];
        while (true) {
            if (pos >= in.length || in[pos] != '"') {
                return null;
            }
            int ks = pos;
            if (!string()) {
                return null;
            }
            int ke = pos;
            skipWhitespace();
            if (pos >= in.length || in[pos] != ':') {
                return null;
            }
            pos++;
            skipWhitespace();
            byte[] v = value(depth + 1);
            if (v == null) {
                return null;
            }
            if (n == keyStart.length) {
                keyStart = Arrays.copyOf(keyStart, n * 2);
                keyEnd = Arrays.copyOf(keyEnd, n * 2);
                values = Arrays.copyOf(values, n * 2);
            }
            keyStart[n] = ks;
            keyEnd[n] = ke;
            values[n] = v;
            n++;
            int next = next('}');
            if (next == END) {
                break;
            }
            if (next == BAD) {
                return null;
            }
        }
        int[] ks = keyStart;
        int[] ke = keyEnd;
        int[] order = sortedNames(n, ks, ke);
        int size = 1 + n;  // braces and separators: '{', n - 1 commas, '}'
        for (int i = 0; i < n; i++) {
            if (i > 0 && Arrays.equals(in, ks[order[i - 1]], ke[order[i - 1]], in, ks[order[i]], ke[order[i]])) {
                return null;  // a duplicate name: the full parser rejects the document
            }
            size += (ke[i] - ks[i]) + 1 + values[i].length;
        }
        byte[] out = new byte[size];
        int o = 0;
        out[o++] = '{';
        for (int i = 0; i < n; i++) {
            int m = order[i];
            if (i > 0) {
                out[o++] = ',';
            }
            System.arraycopy(in, ks[m], out, o, ke[m] - ks[m]);
            o += ke[m] - ks[m];
            out[o++] = ':';
            System.arraycopy(values[m], 0, out, o, values[m].length);
            o += values[m].length;
        }
        out[o] = '}';
        return out;
    }

    /**
     * The indices of an object's {@code n} names in name order (their bytes between the quotes,
     * compared as {@link Arrays#compare(byte[], int, int, byte[], int, int)} does). Objects are
     * small, so an insertion sort over the indices serves most of them without boxing them for a
     * comparator; a large one is sorted by {@link Arrays#sort}. Equal names may come in either
     * order: the caller rejects a document that has any.
     */
    private int[] sortedNames(int n, int[] ks, int[] ke) {
        int[] order = new int[n];
        if (n > INSERTION_SORT_MAX) {
            Integer[] boxed = new Integer[n];
            for (int i = 0; i < n; i++) {
                boxed[i] = i;
            }
            Arrays.sort(boxed, (a, b) -> compareNames(a, b, ks, ke));
            for (int i = 0; i < n; i++) {
                order[i] = boxed[i];
            }
            return order;
        }
        for (int i = 0; i < n; i++) {
            int j = i;
            while (j > 0 && compareNames(order[j - 1], i, ks, ke) > 0) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = i;
        }
        return order;
    }

    private int compareNames(int a, int b, int[] ks, int[] ke) {
        return Arrays.compare(in, ks[a] + 1, ke[a] - 1, in, ks[b] + 1, ke[b] - 1);
    }

    private byte[] array(int depth) {
        pos++;  // '['
        skipWhitespace();
        if (pos < in.length && in[pos] == ']') {
            pos++;
            return new byte[] {'[', ']'};
        }
        byte[] out = new byte[64];
        int o = 0;
        out[o++] = '[';
        while (true) {
            byte[] v = value(depth + 1);
            if (v == null) {
                return null;
            }
            if (o + v.length + 1 > out.length) {
                out = Arrays.copyOf(out, Math.max(out.length * 2, o + v.length + 1));
            }
            System.arraycopy(v, 0, out, o, v.length);
            o += v.length;
            int next = next(']');
            if (next == BAD) {
                return null;
            }
            out[o++] = next == MORE ? (byte) ',' : (byte) ']';
            if (next == END) {
                return Arrays.copyOf(out, o);
            }
        }
    }

    private static final int MORE = 0;
    private static final int END = 1;
    private static final int BAD = 2;

    /**
     * After a member or element: {@link #MORE} past a comma (and the whitespace after it),
     * {@link #END} past {@code close}, {@link #BAD} for anything else.
     */
    private int next(char close) {
        skipWhitespace();
        if (pos >= in.length) {
            return BAD;
        }
        byte b = in[pos++];
        if (b == ',') {
            skipWhitespace();
            return MORE;
        }
        return b == close ? END : BAD;
    }

    /** Moves past a short string of printable ASCII without escapes; false for anything else. */
    private boolean string() {
        pos++;  // '"'
        int end = Math.min(in.length, pos + MAX_STRING_BYTES + 1);
        while (pos < end) {
            byte b = in[pos++];
            if (b == '"') {
                return true;
            }
            if (b < 0x20 || b == '\\' || b >= 0x7f) {  // control, escape, DEL or non-ASCII (b < 0 as a byte)
                return false;
            }
        }
        return false;
    }

    /** {@code word} at pos, ending at a delimiter; the returned array is shared, never written to. */
    private byte[] literal(byte[] word) {
        int n = word.length;
        if (pos + n > in.length || !Arrays.equals(in, pos, pos + n, word, 0, n)) {
            return null;
        }
        pos += n;
        if (pos < in.length && !isDelimiter(in[pos])) {
            return null;
        }
        return word;
    }

    /** {@code -?(0|[1-9][0-9]*)} of at most {@value #MAX_INT_DIGITS} digits, ending at a delimiter. */
    private byte[] integer() {
        int start = pos;
        boolean negative = in[pos] == '-';
        if (negative) {
            pos++;
        }
        int digitsStart = pos;
        while (pos < in.length && in[pos] >= '0' && in[pos] <= '9') {
            pos++;
        }
        int digits = pos - digitsStart;
        if (digits == 0 || digits > MAX_INT_DIGITS || (digits > 1 && in[digitsStart] == '0')) {
            return null;
        }
        if (pos < in.length && !isDelimiter(in[pos])) {
            return null;  // a fraction, an exponent or garbage: the full parser decides
        }
        if (negative && digits == 1 && in[digitsStart] == '0') {
            return new byte[] {'0'};
        }
        return Arrays.copyOfRange(in, start, pos);
    }

    private static boolean isDelimiter(byte b) {
        return b == ',' || b == '}' || b == ']' || isWhitespace(b);
    }

    private static boolean isWhitespace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r';
    }

    private void skipWhitespace() {
        while (pos < in.length && isWhitespace(in[pos])) {
            pos++;
        }
    }
}
