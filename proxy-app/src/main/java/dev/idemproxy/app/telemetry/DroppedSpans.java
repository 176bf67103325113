package dev.idemproxy.app.telemetry;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code idemproxy_trace_spans_dropped_total{reason}}: spans that never reached the collector,
 * by why (docs/metrics.md). Both series are present at 0 from the start. Uses no OpenTelemetry
 * type. This class is thread-safe.
 */
public final class DroppedSpans {
    /** Micrometer name; renders as {@code idemproxy_trace_spans_dropped_total}. */
    public static final String NAME = "idemproxy.trace.spans.dropped";
    public static final String HELP = "Spans not exported, by reason: queue_full (the export queue was full) "
            + "or export_failed (the collector refused, failed or did not answer in time)";

    /** Why a span was dropped, as the {@code reason} label spells it. */
    enum Reason {
        QUEUE_FULL("queue_full"), EXPORT_FAILED("export_failed");

        final String spelling;

        Reason(String spelling) {
            this.spelling = spelling;
        }
    }

    private final Counter queueFull;
    private final Counter exportFailed;

    public DroppedSpans(MeterRegistry registry) {
        this.queueFull = counter(registry, Reason.QUEUE_FULL);
        this.exportFailed = counter(registry, Reason.EXPORT_FAILED);
    }

    private static Counter counter(MeterRegistry registry, Reason reason) {
        return Counter.builder(NAME).description(HELP).tag("reason", reason.spelling).register(registry);
    }

    void queueFull(int spans) {
        queueFull.increment(spans);
    }

    void exportFailed(int spans) {
        exportFailed.increment(spans);
    }
}
