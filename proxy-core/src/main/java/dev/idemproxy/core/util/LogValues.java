package dev.idemproxy.core.util;

/**
 * How a value is written into a text log line (CONTRACT §12 "Logs"), so that no client-supplied
 * text (a key, a business id, a path, a task id, a host) can forge a field or a line:
 * <ul>
 *   <li>null is {@code -}, the field's "none";</li>
 *   <li>a value that needs nothing is written as it is;</li>
 *   <li>any other value is written in double quotes with JSON escaping: {@code "} and {@code \}
 *       as {@code \"} and {@code \\}, and every {@linkplain #isControl control character} as
 *       <code>&#92;uXXXX</code>. A value needs quoting when it is empty or {@code -}, or holds a
 *       space (any Unicode space), {@code "}, {@code \}, {@code =}, {@code ]}, a control
 *       character or half of a surrogate pair.</li>
 * </ul>
 * So {@code key=k-1}, {@code [biz="order 42"]}, {@code path="/a]b"}, <code>key="a&#92;u0085b"</code>: a
 * reader splits fields on spaces outside quotes and reads a quoted value as a JSON string. The
 * JSON layout writes the same control characters the same way ({@link #isControl}).
 * This class is stateless.
 */
public final class LogValues {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private LogValues() {}

    /** C0 controls, DEL, C1 controls (U+0085 among them), LINE SEPARATOR and PARAGRAPH SEPARATOR. */
    public static boolean isControl(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029';
    }

    /** {@code v} as {@link #append} writes it. */
    public static String of(String v) {
        if (v == null) {
            return "-";
        }
        return needsQuotes(v) ? append(new StringBuilder(v.length() + 8), v).toString() : v;
    }

    /** Appends {@code v} as a log field's value (see the class comment); returns {@code sb}. */
    public static StringBuilder append(StringBuilder sb, String v) {
        if (v == null) {
            return sb.append('-');
        }
        if (!needsQuotes(v)) {
            return sb.append(v);
        }
        sb.append('"');
        int from = 0;
        for (int i = 0, n = v.length(); i < n; i++) {
            char c = v.charAt(i);
            boolean quote = c == '"' || c == '\\';
            if (!quote && !isControl(c) && !isLoneSurrogate(v, i)) {
                continue;  // written with the run it is in
            }
            sb.append(v, from, i);
            from = i + 1;
            if (quote) {
                sb.append('\\').append(c);
            } else {
                sb.append("\\u").append(HEX[(c >> 12) & 0xF]).append(HEX[(c >> 8) & 0xF]).append(HEX[(c >> 4) & 0xF])
                        .append(HEX[c & 0xF]);
            }
        }
        return sb.append(v, from, v.length()).append('"');
    }

    /** The ASCII characters a value may hold and still be written as it is. */
    private static final boolean[] PLAIN = new boolean[128];

    static {
        for (char c = '!'; c < 0x7f; c++) {
            PLAIN[c] = c != '"' && c != '\\' && c != '=' && c != ']';
        }
    }

    /** Whether {@code v} cannot be written as it is. One pass, a table look-up per ASCII character; no allocation. */
    static boolean needsQuotes(String v) {
        int n = v.length();
        if (n == 0 || (n == 1 && v.charAt(0) == '-')) {
            return true;
        }
        for (int i = 0; i < n; i++) {
            char c = v.charAt(i);
            if (c < 128) {
                if (!PLAIN[c]) {
                    return true;
                }
            } else if (isControl(c) || Character.isSpaceChar(c) || isLoneSurrogate(v, i)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code v.charAt(i)} is a surrogate that is not half of a pair (no UTF-8 for it). */
    static boolean isLoneSurrogate(String v, int i) {
        char c = v.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 >= v.length() || !Character.isLowSurrogate(v.charAt(i + 1));
        }
        if (Character.isLowSurrogate(c)) {
            return i == 0 || !Character.isHighSurrogate(v.charAt(i - 1));
        }
        return false;
    }
}
