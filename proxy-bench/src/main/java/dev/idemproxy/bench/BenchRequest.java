package dev.idemproxy.bench;

import dev.idemproxy.core.idempotency.RequestView;
import java.util.List;
import java.util.Map;

/**
 * A POST as the proxy's request view shows it, for the benchmarks: one line per header (names
 * matched ignoring case), no query parameters. Immutable.
 */
record BenchRequest(String path, Map<String, String> headers, byte[] body) implements RequestView {

    @Override
    public String method() {
        return "POST";
    }

    @Override
    public String header(String name) {
        for (Map.Entry<String, String> e : headers.entrySet()) {
            if (e.getKey().equalsIgnoreCase(name)) {
                return e.getValue();
            }
        }
        return null;
    }

    @Override
    public int headerLines(String name) {
        return header(name) == null ? 0 : 1;
    }

    @Override
    public List<String> headerValues(String name) {
        String value = header(name);
        return value == null ? List.of() : List.of(value);
    }

    @Override
    public String queryParam(String name) {
        return null;
    }
}
