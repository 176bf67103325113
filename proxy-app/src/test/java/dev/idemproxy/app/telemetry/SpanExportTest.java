package dev.idemproxy.app.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.secret.Redactor;
import dev.idemproxy.core.testing.Await;
import dev.idemproxy.core.testing.FreePorts;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SpanExport} with the SDK and its real OTLP/HTTP exporter, against a real receiver
 * ({@link OtlpCollector}): spans arrive; a stuck collector never makes {@code onEnd} wait, and what
 * does not fit in the queue is dropped and counted at once; a collector that is down costs the
 * spans of each failed export, counted.
 */
class SpanExportTest {
    static final Duration TIMEOUT = Tracing.EXPORT_TIMEOUT;

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    SdkTracerProvider provider;
    OtlpCollector collector;

    Tracer tracer(URI endpoint, int queue, int batch) {
        return tracer(endpoint, queue, batch, TIMEOUT);
    }

    Tracer tracer(URI endpoint, int queue, int batch, Duration timeout) {
        OtlpHttpSpanExporter exporter = OtlpHttpSpanExporter.builder().setEndpoint(endpoint.toString()).setTimeout(timeout)
                .setConnectTimeout(timeout).setRetryPolicy(null).setMeterProvider(MeterProvider::noop).build();
        provider = SdkTracerProvider.builder().setMeterProvider(MeterProvider::noop)
                .addSpanProcessor(new SpanExport(exporter, new DroppedSpans(registry), Redactor.BUILT_IN, timeout, queue, batch)).build();
        return provider.get("test");
    }

    double dropped(String reason) {
        return registry.get(DroppedSpans.NAME).tag("reason", reason).counter().count();
    }

    @AfterEach
    void stop() {
        if (provider != null) {
            provider.shutdown();
        }
        if (collector != null) {
            collector.close();
        }
    }

    @Test
    void endedSpansReachTheCollector() {
        collector = OtlpCollector.start();
        Tracer tracer = tracer(collector.endpoint(), 16, 4);

        for (int i = 0; i < 6; i++) {
            tracer.spanBuilder("span-" + i).startSpan().end();
        }

        assertThat(collector.awaitSpans("spans", 6, Duration.ofSeconds(10), s -> true))
                .extracting(OtlpCollector.Received::name).containsExactlyInAnyOrder("span-0", "span-1", "span-2", "span-3", "span-4", "span-5");
        assertThat(dropped("queue_full") + dropped("export_failed")).isZero();
    }

    @Test
    void aStuckCollectorNeverHoldsAnEndingSpanAndWhatTheQueueCannotTakeIsCountedAtOnce() {
        collector = OtlpCollector.hanging();
        Tracer tracer = tracer(collector.endpoint(), 4, 1, Duration.ofSeconds(3));  // stuck for 3 s: time enough to end ten spans
        tracer.spanBuilder("first").startSpan().end();
        Await.until("the first export to be under way", Duration.ofSeconds(10), () -> collector.exports() == 1);

        for (int i = 0; i < 10; i++) {
            tracer.spanBuilder("more-" + i).startSpan().end();  // the export thread is stuck: only the queue takes them
        }

        assertThat(dropped("queue_full")).as("ten spans, a queue of four").isEqualTo(6);
        Await.until("the stuck export to fail at its timeout", Duration.ofSeconds(15), () -> dropped("export_failed") >= 1);
    }

    @Test
    void aCollectorThatIsDownCostsTheSpansOfEachFailedExportCounted() {
        Tracer tracer = tracer(URI.create("http://127.0.0.1:" + FreePorts.pick() + "/v1/traces"), 16, 16);

        for (int i = 0; i < 3; i++) {
            tracer.spanBuilder("lost-" + i).startSpan().end();
        }

        Await.until("the failed export counted", Duration.ofSeconds(10), () -> dropped("export_failed") == 3);
        assertThat(dropped("queue_full")).isZero();
    }
}
