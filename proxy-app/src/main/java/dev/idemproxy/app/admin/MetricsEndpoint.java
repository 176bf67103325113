package dev.idemproxy.app.admin;

import static java.util.Objects.requireNonNull;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CompletionStage;

/**
 * {@code GET /metrics}: the Prometheus text exposition, or OpenMetrics text when the scraper's
 * {@code Accept} asks for it. A scrape only reads in-memory meters, so it runs on the admin event
 * loop (never the proxy's). Thread-safe.
 */
final class MetricsEndpoint {
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    static final String OPENMETRICS_TEXT = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    private final PrometheusMeterRegistry registry;

    MetricsEndpoint(PrometheusMeterRegistry registry) {
        this.registry = requireNonNull(registry, "registry");
    }

    CompletionStage<AdminResponse> scrape(AdminRequest request) {
        String accept = request.header("accept").orElse("").toLowerCase(Locale.ROOT);
        String contentType = accept.contains("application/openmetrics-text") ? OPENMETRICS_TEXT : PROMETHEUS_TEXT;
        byte[] body = registry.scrape(contentType).getBytes(StandardCharsets.UTF_8);
        return AdminResponse.of(200, contentType, body).completed();
    }
}
