package dev.idemproxy.core.tries;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.secret.Redactor;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Makes the heads a receipt keeps, as they may be shown (docs/security.md): credential header
 * values, secret query values and user-info as {@value Redactor#MASK}, through the config's
 * {@link Redactor} (a URL in any other header's value is shown as {@link Redactor#text} shows it). Values longer than {@value #MAX_VALUE} characters are cut (with
 * {@code …}), at most {@value #MAX_FIELDS} headers are kept, so a receipt stays small. Stateless.
 */
public final class Heads {
    static final int MAX_VALUE = 512;
    static final int MAX_FIELDS = 64;
    /** A response's cookies are credentials too: shown as {@value Redactor#MASK}. */
    private static final String SET_COOKIE = "Set-Cookie";
    /** Headers the proxy itself set on the forwarded request; the client's request had its own or none. */
    private static final Set<String> REWRITTEN = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);

    static {
        REWRITTEN.addAll(List.of("Host", "X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host"));
    }

    private Heads() {
    }

    /**
     * A request head: {@code method}, {@code target} as the client sent it, and {@code headers}
     * less those the proxy rewrote for the upstream ({@code Host}, {@code X-Forwarded-*});
     * {@code host}, when not null, is shown as the client's {@code Host}.
     */
    public static RequestHead request(String method, String target, String host, Iterable<Map.Entry<String, String>> headers,
            Redactor redactor) {
        List<HeadField> fields = new ArrayList<>();
        if (host != null) {
            fields.add(field("Host", host, redactor));
        }
        for (Map.Entry<String, String> h : headers) {
            if (fields.size() == MAX_FIELDS) {
                break;
            }
            if (!REWRITTEN.contains(h.getKey())) {
                fields.add(field(h.getKey(), h.getValue(), redactor));
            }
        }
        return new RequestHead(method.toUpperCase(Locale.ROOT), cut(redactor.url(target)), fields);
    }

    /**
     * A response head: its status and headers ({@code name} and {@code value} read each one), the
     * values of {@code Set-Cookie} shown as {@value Redactor#MASK} besides those of the credential headers.
     */
    public static <H> ResponseHead response(int status, Iterable<H> headers, Function<H, String> name, Function<H, String> value,
            Redactor redactor) {
        List<HeadField> fields = new ArrayList<>();
        for (H h : headers) {
            if (fields.size() == MAX_FIELDS) {
                break;
            }
            String n = name.apply(h);
            fields.add(SET_COOKIE.equalsIgnoreCase(n) ? new HeadField(n, Redactor.MASK) : field(n, value.apply(h), redactor));
        }
        return new ResponseHead(status, fields);
    }

    private static HeadField field(String name, String value, Redactor redactor) {
        requireNonNull(redactor, "redactor");
        String v = value == null ? "" : value;
        return new HeadField(name, cut(redactor.isSecretHeader(name) ? Redactor.MASK : redactor.text(v)));
    }

    private static String cut(String s) {
        return s.length() <= MAX_VALUE ? s : s.substring(0, MAX_VALUE - 1) + "\u2026";
    }
}
