package dev.idemproxy.app.telemetry;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.TelemetryPolicy;
import dev.idemproxy.core.call.CallWatchers;
import dev.idemproxy.core.secret.Redactor;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporterBuilder;
import io.opentelemetry.sdk.common.Clock;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The trace export of {@code telemetry.traces}: the OpenTelemetry SDK's tracer provider, sampling
 * by trace id ({@code sampleRatio}, a caller's own decision followed), spans handed to the OTLP
 * over HTTP/protobuf exporter by {@link SpanExport}, and the watchers that make each call's spans.
 * The only entry to this package: nothing here is loaded unless the config has {@code telemetry}.
 * This class is thread-safe.
 */
public final class Tracing implements AutoCloseable {
    /** How long one export may take, connection included; then it has failed and its spans are dropped. */
    static final Duration EXPORT_TIMEOUT = Duration.ofSeconds(5);
    static final String SCOPE = "dev.idemproxy";
    /**
     * The SDK's own log (java.util.logging, which this process does not route): silenced, held here
     * so the setting stays. {@link SpanExport} says what an export failure means, in the proxy's log.
     */
    private static final java.util.logging.Logger SDK_LOG = java.util.logging.Logger.getLogger("io.opentelemetry");

    private final SdkTracerProvider provider;
    private final CallWatchers watchers;

    private Tracing(SdkTracerProvider provider, CallWatchers watchers) {
        this.provider = provider;
        this.watchers = watchers;
    }

    /**
     * Starts the export (its thread; the collector is not contacted until the first batch).
     *
     * @param redactor what is secret in the URLs the spans show
     * @param registry where {@code idemproxy_trace_spans_dropped_total} goes
     * @param version  the build's version: the {@code service.version} resource attribute
     */
    public static Tracing start(TelemetryPolicy policy, Redactor redactor, MeterRegistry registry, String version) {
        TelemetryPolicy.Traces t = requireNonNull(policy, "policy").traces();
        SDK_LOG.setLevel(java.util.logging.Level.OFF);
        OtlpHttpSpanExporterBuilder exporter = OtlpHttpSpanExporter.builder()
                .setEndpoint(t.endpoint().toString())
                .setTimeout(EXPORT_TIMEOUT)
                .setConnectTimeout(EXPORT_TIMEOUT)
                .setRetryPolicy(null)  // a failed batch is dropped and counted; the next one tries afresh
                .setMeterProvider(MeterProvider::noop);
        t.headers().forEach(exporter::addHeader);
        Resource resource = Resource.getDefault().merge(Resource.create(Attributes.of(
                AttributeKey.stringKey("service.name"), "idemproxy", AttributeKey.stringKey("service.version"), version)));
        SdkTracerProvider provider = SdkTracerProvider.builder()
                .setResource(resource)
                .setSampler(Sampler.parentBased(sampler(t.sampleRatio())))
                .setMeterProvider(MeterProvider::noop)
                .addSpanProcessor(new SpanExport(exporter.build(), new DroppedSpans(registry), redactor, EXPORT_TIMEOUT))
                .build();
        CallSpans spans = new CallSpans(provider.tracerBuilder(SCOPE).setInstrumentationVersion(version).build(), redactor,
                new RecentCalls());
        return new Tracing(provider, new TraceWatchers(spans, Clock.getDefault(), t.passThrough()));
    }

    /** New traces kept by their id's share; all, or none, without reading the id. */
    private static Sampler sampler(double ratio) {
        return ratio >= 1.0 ? Sampler.alwaysOn() : ratio <= 0.0 ? Sampler.alwaysOff() : Sampler.traceIdRatioBased(ratio);
    }

    /** What makes each call's trace: set on the proxy before it starts. */
    public CallWatchers watchers() {
        return watchers;
    }

    /** Exports what is queued (within {@link SpanExport#SHUTDOWN}) and stops; after the proxy has stopped. */
    @Override
    public void close() {
        provider.shutdown().join(SpanExport.SHUTDOWN.toMillis() + 1000, TimeUnit.MILLISECONDS);
    }
}
