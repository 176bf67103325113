package dev.idemproxy.core.idempotency;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A plain {@link RequestView} for tests (public for the call dialects' tests, such as MCP's);
 * {@code with…} methods return changed copies. Header names are lower-cased keys.
 */
public record TestRequest(String method, String path, Map<String, List<String>> headers, Map<String, String> query, byte[] body)
        implements RequestView {

    public static TestRequest post(String path) {
        return new TestRequest("POST", path, Map.of(), Map.of(), new byte[0]);
    }

    public TestRequest withHeader(String name, String value) {
        return withHeaderLines(name, value);
    }

    /** The header sent on one line per value. */
    public TestRequest withHeaderLines(String name, String... values) {
        Map<String, List<String>> h = new LinkedHashMap<>(headers);
        h.put(name.toLowerCase(Locale.ROOT), List.of(values));
        return new TestRequest(method, path, h, query, body);
    }

    public TestRequest withQuery(String name, String value) {
        Map<String, String> q = new LinkedHashMap<>(query);
        q.put(name, value);
        return new TestRequest(method, path, headers, q, body);
    }

    public TestRequest withJson(String json) {
        return withHeader("Content-Type", "application/json").withBody(json);
    }

    public TestRequest withBody(String text) {
        return new TestRequest(method, path, headers, query, text.getBytes(StandardCharsets.UTF_8));
    }

    public TestRequest withMethod(String m) {
        return new TestRequest(m, path, headers, query, body);
    }

    @Override
    public String header(String name) {
        List<String> lines = headers.get(name.toLowerCase(Locale.ROOT));
        return lines == null ? null : lines.get(0);
    }

    @Override
    public int headerLines(String name) {
        List<String> lines = headers.get(name.toLowerCase(Locale.ROOT));
        return lines == null ? 0 : lines.size();
    }

    @Override
    public List<String> headerValues(String name) {
        return headers.getOrDefault(name.toLowerCase(Locale.ROOT), List.of());
    }

    @Override
    public String queryParam(String name) {
        return query.get(name);
    }
}
