package dev.idemproxy.core;

import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.secret.Redactor;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the proxy tells a telemetry backend about its calls (YAML {@code telemetry},
 * docs/operations.md): today its traces, sent as OTLP over HTTP/protobuf. The engine never reads
 * it: the app builds the exporter from it and watches calls through
 * {@link dev.idemproxy.core.call.CallWatchers}. Absent from the config (null in
 * {@link ProxyConfig#telemetry()}), nothing is traced. This class is immutable.
 *
 * @param traces where and how spans go
 */
public record TelemetryPolicy(Traces traces) {

    public TelemetryPolicy {
        requireNonNull(traces, "traces");
    }

    /**
     * The trace export ({@code telemetry.traces}).
     *
     * @param endpoint    the OTLP/HTTP traces URL spans are POSTed to, e.g. {@code http://collector:4318/v1/traces}
     * @param sampleRatio the share of new traces kept, 0.0 to 1.0 (a caller's own sampling decision,
     *                    in its {@code traceparent}, is followed)
     * @param headers     sent with every export (an API key, say): secrets, never shown
     * @param passThrough whether calls the proxy only passes through (no idempotency, no retries) are traced too
     */
    public record Traces(URI endpoint, double sampleRatio, Map<String, String> headers, boolean passThrough) {
        public static final double DEFAULT_SAMPLE_RATIO = 1.0;

        public Traces {
            requireNonNull(endpoint, "endpoint");
            requireArgument("http".equals(endpoint.getScheme()) || "https".equals(endpoint.getScheme()),
                    "telemetry.traces.endpoint (expected: an http or https URL)");
            requireArgument(sampleRatio >= 0.0 && sampleRatio <= 1.0,
                    "telemetry.traces.sampleRatio " + sampleRatio + " (expected: 0.0..1.0)");
            headers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(headers, "headers")));
        }

        /** The headers with every value as {@value Redactor#MASK}: what may be shown of them. */
        public Map<String, String> shownHeaders() {
            Map<String, String> shown = new LinkedHashMap<>();
            headers.keySet().forEach(name -> shown.put(name, Redactor.MASK));
            return shown;
        }

        @Override
        public String toString() {
            return "Traces[endpoint=" + Redactor.BUILT_IN.url(endpoint.toString()) + ", sampleRatio=" + sampleRatio
                    + ", headers=" + shownHeaders() + ", passThrough=" + passThrough + "]";
        }
    }
}
