package dev.idemproxy.core.idempotency;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A plain {@link RequestView} for tests; {@code with…} methods return changed copies. Header names are lower-cased keys. */
record TestRequest(String method, String path, Map<String, List<String>> headers, Map<String, String> query, byte[] body)
        implements RequestView {

    static TestRequest post(String path) {
        return new TestRequest("POST", path, Map.of(), Map.of(), new byte[0]);
    }

    TestRequest withHeader(String name, String value) {
        return withHeaderLines(name, value);
    }

    /** The header sent on one line per value. */
    TestRequest withHeaderLines(String name, String... values) {
        Map<String, List<String>> h = new LinkedHashMap<>(headers);
        h.put(name.toLowerCase(Locale.ROOT), List.of(values));
        return new TestRequest(method, path, h, query, body);
    }

    TestRequest withQuery(String name, String value) {
        Map<String, String> q = new LinkedHashMap<>(query);
        q.put(name, value);
        return new TestRequest(method, path, headers, q, body);
    }

    TestRequest withJson(String json) {
        return withHeader("Content-Type", "application/json").withBody(json);
    }

    TestRequest withBody(String text) {
        return new TestRequest(method, path, headers, query, text.getBytes(StandardCharsets.UTF_8));
    }

    TestRequest withMethod(String m) {
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
