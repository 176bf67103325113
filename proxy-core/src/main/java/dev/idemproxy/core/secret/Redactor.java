package dev.idemproxy.core.secret;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What never leaves the proxy in clear (docs/security.md), and how it is shown instead: {@value #MASK}.
 * Secrets are the values of the credential headers ({@link #CREDENTIAL_HEADERS} and the
 * configured {@code secretHeaders}), the values of query parameters named in
 * {@link #SECRET_QUERY_PARAMS} or the configured {@code secretQueryParams} (names compared without
 * regard to case, after percent-decoding), and a URL's user-info, all of {@code user:password}.
 *
 * <p>The one place these rules live: log lines, dead-letter and config views of the admin API,
 * {@code validate}, problem details and CLI messages all show what this class gives. What the
 * proxy needs to work (a stored request for a DLQ replay, the upstream URL it connects to) is
 * kept as it was; only what is shown goes through here.
 *
 * <p>Pure and cheap when there is nothing to hide: a target without {@code ?} and a text without
 * {@code ://} or {@code ?} come back as the same string, with no allocation. This class is
 * immutable and thread-safe.
 */
public final class Redactor {
    /** What a secret is shown as. */
    public static final String MASK = "***";
    /** Headers that carry credentials whatever the config says (docs/security.md). */
    public static final List<String> CREDENTIAL_HEADERS =
            List.of("Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "Api-Key");
    /** Query parameters whose values are secrets whatever the config says (docs/security.md). */
    public static final List<String> SECRET_QUERY_PARAMS =
            List.of("api_key", "apikey", "key", "token", "access_token", "password", "secret", "signature");
    /** The built-in rules alone: for what is shown before (or without) a config. */
    public static final Redactor BUILT_IN = new Redactor(List.of(), List.of());

    private final Set<String> headers;
    private final Set<String> queryParams;
    private final String[] queryNames;
    private final List<String> headerNames;

    private Redactor(Collection<String> secretHeaders, Collection<String> secretQueryParams) {
        this.headers = lowerCase(CREDENTIAL_HEADERS, secretHeaders);
        this.queryParams = lowerCase(SECRET_QUERY_PARAMS, secretQueryParams);
        this.queryNames = queryParams.toArray(new String[0]);
        List<String> names = new ArrayList<>(CREDENTIAL_HEADERS);
        for (String h : secretHeaders) {
            if (names.stream().noneMatch(h::equalsIgnoreCase)) {
                names.add(h);
            }
        }
        this.headerNames = List.copyOf(names);
    }

    /**
     * The built-in rules plus the configured names.
     *
     * @param secretHeaders     the config's {@code secretHeaders}
     * @param secretQueryParams the config's {@code secretQueryParams}
     */
    public static Redactor of(Collection<String> secretHeaders, Collection<String> secretQueryParams) {
        requireNonNull(secretHeaders, "secretHeaders");
        requireNonNull(secretQueryParams, "secretQueryParams");
        return secretHeaders.isEmpty() && secretQueryParams.isEmpty() ? BUILT_IN : new Redactor(secretHeaders, secretQueryParams);
    }

    private static Set<String> lowerCase(List<String> builtIn, Collection<String> configured) {
        Set<String> s = new HashSet<>();
        builtIn.forEach(n -> s.add(n.toLowerCase(Locale.ROOT)));
        configured.forEach(n -> s.add(requireNonNull(n, "name").toLowerCase(Locale.ROOT)));
        return Set.copyOf(s);
    }

    /** The credential headers, built-in first, then the configured ones not among them, as spelt there. */
    public List<String> secretHeaders() {
        return headerNames;
    }

    /** Whether a header of this name (any case) carries a secret. */
    public boolean isSecretHeader(CharSequence name) {
        return headers.contains(name.toString().toLowerCase(Locale.ROOT));
    }

    /**
     * As {@link #isSecretHeader}, comparing in place, without a copy of {@code name}: for what runs
     * once per header of every call (a receipt's heads).
     */
    public boolean isSecretHeaderName(CharSequence name) {
        for (String n : headerNames) {
            if (equalsIgnoreAsciiCase(n, name)) {
                return true;
            }
        }
        return false;
    }

    private static boolean equalsIgnoreAsciiCase(String a, CharSequence b) {
        int n = a.length();
        if (b.length() != n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x != y && Character.toLowerCase(x) != Character.toLowerCase(y)) {
                return false;
            }
        }
        return true;
    }

    /** Whether a query parameter of this name (any case, percent-encoded or not) carries a secret. */
    public boolean isSecretQueryParam(CharSequence name) {
        return queryParams.contains(decode(name.toString()).toLowerCase(Locale.ROOT));
    }

    /** A header's value as it may be shown: {@value #MASK} for a secret header. */
    public String header(CharSequence name, String value) {
        return value != null && isSecretHeader(name) ? MASK : value;
    }

    /**
     * A request target ({@code /path?query}, or anything with a query) as it may be shown: the
     * value of every secret query parameter replaced by {@value #MASK}; everything else, the
     * fragment included, byte for byte. Parameters are separated by {@code &} or {@code ;}; a
     * parameter without {@code =} or with an empty value has nothing to hide.
     */
    public String target(String target) {
        if (target == null) {
            return null;
        }
        int q = target.indexOf('?');
        if (q < 0 || !hasSecret(target, q + 1)) {
            return target;
        }
        return query(target, q + 1, new StringBuilder(target.length() + 8).append(target, 0, q + 1));
    }

    /** Whether the query from {@code from} has a secret parameter with a value; no allocation unless a name has escapes. */
    private boolean hasSecret(String s, int from) {
        int end = s.indexOf('#', from);
        if (end < 0) {
            end = s.length();
        }
        for (int i = from; i < end; ) {
            int next = i;
            while (next < end && s.charAt(next) != '&' && s.charAt(next) != ';') {
                next++;
            }
            int eq = s.indexOf('=', i);
            if (eq >= 0 && eq + 1 < next && isSecretName(s, i, eq)) {
                return true;
            }
            i = next + 1;
        }
        return false;
    }

    /** Whether {@code s[from, to)} names a secret query parameter; compared in place unless it has escapes. */
    private boolean isSecretName(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c == '%' || c == '+') {
                return isSecretQueryParam(s.substring(from, to));
            }
        }
        int len = to - from;
        for (String name : queryNames) {
            if (name.length() == len && s.regionMatches(true, from, name, 0, len)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A URL as it may be shown: its user-info (all of {@code user:password}) replaced by
     * {@value #MASK}, and its query as {@link #target} shows it. The authority ends at the first
     * {@code /}, {@code ?} or {@code #}; a password holding one of those must be percent-encoded,
     * as RFC 3986 asks, to be hidden whole. Text without {@code ://} is taken as a target.
     */
    public String url(String url) {
        if (url == null) {
            return null;
        }
        int scheme = url.indexOf("://");
        if (scheme < 0) {
            return target(url);
        }
        int start = scheme + 3;
        int end = start;
        while (end < url.length() && "/?#".indexOf(url.charAt(end)) < 0) {
            end++;
        }
        int at = url.lastIndexOf('@', end - 1);
        String tail = url.substring(end);
        String rest = target(tail);
        if (at < start) {
            return rest == tail ? url : url.substring(0, end) + rest;
        }
        return url.substring(0, start) + MASK + url.substring(at, end) + rest;
    }

    /**
     * Free text (an error message, a problem detail) as it may be shown: every URL in it (a
     * word with {@code ://}) as {@link #url} shows it, and every other word with a {@code ?} as
     * {@link #target} does. Words end at white space and at quotes, {@code <} and {@code >}.
     */
    public String text(String text) {
        if (text == null || (text.indexOf("://") < 0 && text.indexOf('?') < 0)) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        int i = 0;
        int n = text.length();
        while (i < n) {
            if (endsWord(text.charAt(i))) {
                out.append(text.charAt(i++));
                continue;
            }
            int start = i;
            while (i < n && !endsWord(text.charAt(i))) {
                i++;
            }
            String word = text.substring(start, i);
            out.append(word.indexOf("://") >= 0 || word.indexOf('?') >= 0 ? url(word) : word);
        }
        return out.toString();
    }

    private static boolean endsWord(char c) {
        return Character.isWhitespace(c) || c == '\'' || c == '"' || c == '`' || c == '<' || c == '>';
    }

    /** Appends {@code s}'s query from {@code from} (after the {@code ?}) to {@code out}, secrets masked. */
    private String query(String s, int from, StringBuilder out) {
        int end = s.indexOf('#', from);
        if (end < 0) {
            end = s.length();
        }
        int i = from;
        while (i <= end) {
            int next = i;
            while (next < end && s.charAt(next) != '&' && s.charAt(next) != ';') {
                next++;
            }
            int eq = s.indexOf('=', i);
            if (eq >= 0 && eq + 1 < next && isSecretName(s, i, eq)) {
                out.append(s, i, eq + 1).append(MASK);
            } else {
                out.append(s, i, next);
            }
            if (next < end) {
                out.append(s.charAt(next));
            }
            i = next + 1;
        }
        return out.append(s, end, s.length()).toString();
    }

    /** {@code name} with its percent-escapes (and {@code +}) decoded as UTF-8; as it is when it has none or a bad one. */
    private static String decode(String name) {
        if (name.indexOf('%') < 0 && name.indexOf('+') < 0) {
            return name;
        }
        try {
            return java.net.URLDecoder.decode(name, java.nio.charset.StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return name;
        }
    }
}
