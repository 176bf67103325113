package dev.idemproxy.app.admin;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * One admin request as a handler sees it: method, decoded path, path variables from the route
 * pattern, query parameters, headers (names lower-cased) and the aggregated body. It holds copies,
 * never Netty buffers, so a handler may use it after the event loop has moved on. This class is
 * immutable.
 */
public final class AdminRequest {
    private final String method;
    private final String path;
    private final Map<String, String> pathParams;
    private final Map<String, List<String>> queryParams;
    private final Map<String, List<String>> headers;
    private final byte[] body;

    AdminRequest(String method, String path, Map<String, String> pathParams,
            Map<String, List<String>> queryParams, Map<String, List<String>> headers, byte[] body) {
        this.method = requireNonNull(method, "method");
        this.path = requireNonNull(path, "path");
        this.pathParams = Map.copyOf(pathParams);
        this.queryParams = copy(queryParams);
        this.headers = copy(headers);
        this.body = body.clone();
    }

    /** {@code GET}, {@code POST}, … in upper case. */
    public String method() {
        return method;
    }

    /** The percent-decoded path without the query string, e.g. {@code /receipts/c-1}. */
    public String path() {
        return path;
    }

    /** The value of {@code {name}} in the route's pattern. */
    public String pathParam(String name) {
        String v = pathParams.get(name);
        if (v == null) {
            throw new IllegalArgumentException("no path variable {" + name + "} (expected one of: "
                    + pathParams.keySet() + ")");
        }
        return v;
    }

    /** The first value of a query parameter, if present. */
    public Optional<String> queryParam(String name) {
        List<String> values = queryParams.get(name);
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }

    public Map<String, List<String>> queryParams() {
        return queryParams;
    }

    /** The first value of a header (case-insensitive name), if present. */
    public Optional<String> header(String name) {
        List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }

    /** The request body (at most the listener's limit); a copy. */
    public byte[] body() {
        return body.clone();
    }

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    private static Map<String, List<String>> copy(Map<String, List<String>> m) {
        return m.entrySet().stream().collect(Collectors.toUnmodifiableMap(
                Map.Entry::getKey, e -> List.copyOf(e.getValue())));
    }

    @Override
    public String toString() {
        return "AdminRequest[" + method + " " + path + "]";
    }
}
