package dev.idemproxy.app.cli;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import dev.idemproxy.core.secret.Redactor;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * A small blocking client of a running proxy's admin API, for the {@code dlq} and
 * {@code receipts} verbs: one request, status and body back. Sends {@code Authorization: Bearer}
 * when a token is given. Thread-safe (the JDK client is).
 */
final class AdminClient {
    /** What the admin API answered. */
    record Response(int status, String contentType, String body) {
        boolean ok() {
            return status >= 200 && status < 300;
        }
    }

    private final URI base;
    private final String token;
    private final HttpClient http;

    /**
     * @param base  e.g. {@code http://127.0.0.1:9901}; a path prefix is kept
     * @param token the Bearer token, or null/empty for none
     * @throws IllegalArgumentException when {@code base} is not an http(s) URL with a host
     */
    AdminClient(String base, String token) {
        this.base = parse(requireNonNull(base, "base"));
        this.token = token == null ? "" : token.trim();
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    private static URI parse(String base) {
        URI uri;
        try {
            uri = URI.create(base.endsWith("/") ? base.substring(0, base.length() - 1) : base);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--admin '" + Redactor.BUILT_IN.url(base) + "' (expected: a URL such as http://127.0.0.1:9901)");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
            throw new IllegalArgumentException("--admin '" + Redactor.BUILT_IN.url(base) + "' (expected: a URL such as http://127.0.0.1:9901)");
        }
        return uri;
    }

    /** The admin base URL as given, for messages: its user-info and secret query parameters shown as {@code ***}. */
    String shownBase() {
        return Redactor.BUILT_IN.url(base.toString());
    }

    /**
     * Sends {@code method} to {@code pathAndQuery} (already encoded: build it with {@link #segment}
     * and {@link #query}) and waits up to {@code timeout} for the whole answer.
     */
    Response send(String method, String pathAndQuery, Duration timeout) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + pathAndQuery))
                .timeout(timeout)
                .header("Accept", "application/json")
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (!token.isEmpty()) {
            b.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        return new Response(r.statusCode(), r.headers().firstValue("content-type").orElse(""), r.body());
    }

    /** One path segment, percent-encoded. */
    static String segment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** One query value, percent-encoded. */
    static String query(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
