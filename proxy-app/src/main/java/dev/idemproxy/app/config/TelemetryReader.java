package dev.idemproxy.app.config;

import dev.idemproxy.core.TelemetryPolicy;
import dev.idemproxy.core.TelemetryPolicy.Traces;
import dev.idemproxy.core.secret.Redactor;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Maps the top level's {@code telemetry} section (docs/configuration.md) onto {@link TelemetryPolicy}:
 * absent, nothing is traced (null). Its {@code traces.headers} values are secrets: no problem line
 * quotes one.
 */
final class TelemetryReader {
    private TelemetryReader() {}

    /** The telemetry settings, or null when the section is absent (or had problems, each one recorded). */
    static TelemetryPolicy read(MapReader root) {
        if (!root.has("telemetry")) {
            return null;
        }
        MapReader traces = root.map("telemetry").map("traces");
        traces.requireKey("endpoint");
        URI endpoint = traces.parsed("endpoint", null, "an http or https URL", TelemetryReader::endpoint);
        double sampleRatio = traces.number("sampleRatio", Traces.DEFAULT_SAMPLE_RATIO, 0.0, 1.0);
        Map<String, String> headers = new LinkedHashMap<>();
        traces.namedValues("headers", "a header value", TelemetryReader::headerValue).forEach((name, value) -> {
            try {
                headers.put(Reading.headerName(name), value);
            } catch (IllegalArgumentException e) {
                traces.problem("headers", e.getMessage());
            }
        });
        boolean passThrough = traces.bool("passThrough", false);
        if (endpoint == null) {
            return null;
        }
        return traces.reading().problems().build(traces.at("endpoint"), traces.path(),
                () -> new TelemetryPolicy(new Traces(endpoint, sampleRatio, headers, passThrough)));
    }

    private static URI endpoint(String text) {
        String shown = "'" + Redactor.BUILT_IN.url(text) + "' (expected: an http or https URL such as http://collector:4318/v1/traces)";
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(shown);
        }
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
            throw new IllegalArgumentException(shown);
        }
        return uri;
    }

    /** A header value as it may go on the wire: never quoted back, it is a secret. */
    private static String headerValue(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if ((c < 0x20 && c != '\t') || c == 0x7f) {
                throw new IllegalArgumentException("a value with a control character (expected: a header value; the value is not shown)");
            }
        }
        return text;
    }
}
