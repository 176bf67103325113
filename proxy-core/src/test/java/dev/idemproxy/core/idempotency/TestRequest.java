package dev.idemproxy.core.idempotency;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** A plain {@link RequestView} for tests; {@code with…} methods return changed copies. */
record TestRequest(String method, String path, Map<String, String> headers, Map<String, String> query, byte[] body)
        implements RequestView {

    static TestRequest post(String path) {
        return new TestRequest("POST", path, Map.of(), Map.of(), new byte[0]);
    }

    TestRequest withHeader(String name, String value) {
        Map<String, String> h = new LinkedHashMap<>(headers);
        h.put(name.toLowerCase(Locale.ROOT), value);
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
        return headers.get(name.toLowerCase(Locale.ROOT));
    }

    @Override
    public String queryParam(String name) {
        return query.get(name);
    }
}
