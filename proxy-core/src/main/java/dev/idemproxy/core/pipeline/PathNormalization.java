package dev.idemproxy.core.pipeline;

/**
 * The path of a request target as routes match it, derived keys see it and the upstream gets
 * it (Envoy's {@code normalize_path: true}, always on): percent-encoded unreserved characters
 * decoded (RFC 3986 §2.3, §6.2.2.2: {@code %7E} is {@code ~}, {@code %2e} a dot) and then
 * dot-segments removed (§5.2.4, §6.2.2.3), so {@code /u/../admin} and {@code /u/%2E%2E/admin}
 * are {@code /admin}. Other escapes ({@code %2F}, {@code %25}, {@code %C3%A9}…) are kept as
 * they were sent, their hex digits' case included; repeated slashes are kept; a
 * {@code ..} at the root stays at the root ({@code /../x} is {@code /x}). A {@code %} not
 * followed by two hex digits makes the target malformed.
 *
 * <p>An already normal path, the common case (kept escapes such as {@code %20} included), costs
 * one scan and no allocation: {@link #scan} finds the query's {@code ?} and whether anything
 * needs doing on the way. This class is stateless.
 */
final class PathNormalization {
    private PathNormalization() {}

    /**
     * Scans a target that starts with {@code /} up to its query. Returns the end of the path
     * (the index of the first {@code ?}, or the length) when the path is already normal; when
     * the path has a dot-segment, an escaped unreserved character or a malformed escape, returns
     * {@code ~end} (negative), and the path is to be given to {@link #normalize}. Escapes that
     * stay ({@code %20}, {@code %2F}, UTF-8) leave a path normal.
     */
    static int scan(String target) {
        int n = target.length();
        boolean normal = true;
        for (int i = 0; i < n; i++) {
            char c = target.charAt(i);
            if (c == '?') {
                return normal ? i : ~i;
            }
            if (c == '%') {
                normal &= isKeptEscape(target, i);
            } else if (c == '.' && i > 0 && target.charAt(i - 1) == '/' && isDotSegment(target, i)) {
                normal = false;
            }
        }
        return normal ? n : ~n;
    }

    /**
     * The normal form of {@code target}'s path, its first {@code end} characters (which start
     * with {@code /}); {@code target} itself when {@code end} is its length and nothing changes.
     * Null when a {@code %} is not followed by two hex digits.
     */
    static String normalize(String target, int end) {
        StringBuilder decoded = decodeUnreserved(target, end);
        if (decoded == null) {
            return null;
        }
        String path = removeDotSegments(decoded);
        return end == target.length() && path.contentEquals(target) ? target : path;
    }

    /** Equal to {@code normalize(path, path.length())}. */
    static String normalize(String path) {
        return normalize(path, path.length());
    }

    /** The first {@code end} characters of {@code s}, escapes of unreserved characters decoded; null when an escape is malformed. */
    private static StringBuilder decodeUnreserved(String s, int end) {
        StringBuilder out = new StringBuilder(end);
        for (int i = 0; i < end; i++) {
            char c = s.charAt(i);
            if (c != '%') {
                out.append(c);
                continue;
            }
            int hi = i + 1 < end ? hex(s.charAt(i + 1)) : -1;
            int lo = i + 2 < end ? hex(s.charAt(i + 2)) : -1;
            if (hi < 0 || lo < 0) {
                return null;
            }
            char decoded = (char) (hi << 4 | lo);
            if (isUnreserved(decoded)) {
                out.append(decoded);
            } else {
                out.append(s, i, i + 3);
            }
            i += 2;
        }
        return out;
    }

    /**
     * RFC 3986 §5.2.4 on a path that starts with {@code /}, a segment at a time: {@code .} is
     * dropped, {@code ..} drops the segment before it (none at the root), and either at the end
     * leaves a trailing slash ({@code /a/b/..} is {@code /a/}).
     */
    private static String removeDotSegments(CharSequence in) {
        int n = in.length();
        StringBuilder out = new StringBuilder(n);
        int i = 0;
        while (i < n) {
            int next = i + 1;  // in[i] is '/'
            while (next < n && in.charAt(next) != '/') {
                next++;
            }
            int length = next - i - 1;
            boolean dot = length == 1 && in.charAt(i + 1) == '.';
            boolean dotDot = length == 2 && in.charAt(i + 1) == '.' && in.charAt(i + 2) == '.';
            if (dot || dotDot) {
                if (dotDot) {
                    int last = out.lastIndexOf("/");
                    out.setLength(Math.max(last, 0));
                }
                if (next == n) {
                    out.append('/');
                }
            } else {
                out.append(in, i, next);
            }
            i = next;
        }
        return out.toString();
    }

    /** True when the {@code %} at {@code i} begins a well-formed escape of a character that is not unreserved. */
    private static boolean isKeptEscape(String s, int i) {
        int hi = i + 1 < s.length() ? hex(s.charAt(i + 1)) : -1;
        int lo = i + 2 < s.length() ? hex(s.charAt(i + 2)) : -1;
        return hi >= 0 && lo >= 0 && !isUnreserved((char) (hi << 4 | lo));
    }

    /** True when the {@code .} at {@code i}, just after a {@code /}, begins a {@code .} or {@code ..} segment. */
    private static boolean isDotSegment(String s, int i) {
        int j = i + 1;
        if (j < s.length() && s.charAt(j) == '.') {
            j++;
        }
        return j == s.length() || s.charAt(j) == '/' || s.charAt(j) == '?';
    }

    /** RFC 3986 §2.3: ALPHA / DIGIT / "-" / "." / "_" / "~". */
    private static boolean isUnreserved(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '-' || c == '.' || c == '_' || c == '~';
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }
}
