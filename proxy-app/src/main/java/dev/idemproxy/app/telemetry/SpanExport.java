package dev.idemproxy.app.telemetry;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.secret.Redactor;
import dev.idemproxy.core.util.LogThrottle;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands ended, sampled spans to an exporter off the event loops, never making a call wait: a span
 * ending on a loop is offered to a bounded queue ({@value #QUEUE} spans) and nothing else; one
 * daemon thread exports a batch as soon as {@value #BATCH} spans wait, or every second what has
 * come, one batch at a time, each bounded by the exporter's timeout. A span that finds the
 * queue full, and every span of a batch whose export failed or did not answer in time, is dropped
 * and counted ({@link DroppedSpans}): a slow or absent collector costs spans, never calls. At
 * shutdown what is queued gets one last try, within {@link #SHUTDOWN}.
 *
 * <p>The SDK's {@code BatchSpanProcessor} does the same but counts its drops only through an
 * OpenTelemetry meter provider; this one counts them in the proxy's own registry, by reason, and
 * says why an export failed in one WARN line per 10 s at most. This class is thread-safe.
 */
final class SpanExport implements SpanProcessor {
    private static final Logger LOG = LoggerFactory.getLogger(SpanExport.class);
    private static final LogThrottle FAILED_LOG = LogThrottle.every(Duration.ofSeconds(10));

    static final int QUEUE = 2048;
    static final int BATCH = 512;
    static final Duration DELAY = Duration.ofSeconds(1);
    static final Duration SHUTDOWN = Duration.ofSeconds(5);

    private final SpanExporter exporter;
    private final DroppedSpans dropped;
    private final Redactor redactor;
    private final Duration exportTimeout;
    private final int batchSize;
    private final ArrayBlockingQueue<ReadableSpan> queue;
    /** Spans in the queue, kept beside it so that an ending span reads it without the queue's lock. */
    private final AtomicInteger queued = new AtomicInteger();
    private final Thread worker;
    /** Set while the export thread waits for a batch to fill: the span that fills it wakes the thread. */
    private volatile boolean waiting;
    private volatile boolean closing;

    /** Starts the export thread. */
    SpanExport(SpanExporter exporter, DroppedSpans dropped, Redactor redactor, Duration exportTimeout) {
        this(exporter, dropped, redactor, exportTimeout, QUEUE, BATCH);
    }

    /** With a queue of {@code queueSize} spans exported in batches of up to {@code batchSize} (tests make them small). */
    SpanExport(SpanExporter exporter, DroppedSpans dropped, Redactor redactor, Duration exportTimeout, int queueSize,
            int batchSize) {
        this.exporter = requireNonNull(exporter, "exporter");
        this.dropped = requireNonNull(dropped, "dropped");
        this.redactor = requireNonNull(redactor, "redactor");
        this.exportTimeout = requireNonNull(exportTimeout, "exportTimeout");
        this.batchSize = batchSize;
        this.queue = new ArrayBlockingQueue<>(queueSize);
        this.worker = new Thread(this::run, "idemproxy-trace-export");
        worker.setDaemon(true);
        worker.start();
    }

    @Override
    public void onStart(Context parentContext, ReadWriteSpan span) {
    }

    @Override
    public boolean isStartRequired() {
        return false;
    }

    /** On the thread that ended the span (an event loop): offered, or counted as dropped; never waits. */
    @Override
    public void onEnd(ReadableSpan span) {
        if (!span.getSpanContext().isSampled()) {
            return;
        }
        if (closing || !queue.offer(span)) {
            dropped.queueFull(1);
            return;
        }
        if (queued.incrementAndGet() >= batchSize && waiting) {
            waiting = false;
            LockSupport.unpark(worker);
        }
    }

    @Override
    public boolean isEndRequired() {
        return true;
    }

    /** The export thread: a batch when one is full, else every {@link #DELAY} what has come; until closing. */
    private void run() {
        List<ReadableSpan> batch = new ArrayList<>(batchSize);
        while (!closing) {
            if (queued.get() < batchSize) {
                waiting = true;
                if (queued.get() < batchSize) {  // again, now that a filling span will wake it
                    LockSupport.parkNanos(this, DELAY.toNanos());
                }
                waiting = false;
            }
            if (closing) {
                break;  // what is left is exported by shutdown()
            }
            int n = queue.drainTo(batch, batchSize);
            if (n == 0) {
                continue;
            }
            queued.addAndGet(-n);
            try {
                export(batch, exportTimeout.toMillis() + 1000);  // past the exporter's own timeout: one export at a time
            } catch (RuntimeException e) {
                dropped.exportFailed(n);
            }
            batch.clear();
        }
    }

    /**
     * Exports {@code batch} and waits for the answer, up to {@code waitMillis} (the exporter gives up
     * at its own timeout); counts the spans of an export that failed or did not answer.
     */
    private void export(List<ReadableSpan> batch, long waitMillis) {
        List<SpanData> data = new ArrayList<>(batch.size());
        for (ReadableSpan s : batch) {
            data.add(s.toSpanData());
        }
        CompletableResultCode result = exporter.export(data).join(waitMillis, TimeUnit.MILLISECONDS);
        if (!result.isSuccess()) {
            dropped.exportFailed(batch.size());
            long held = FAILED_LOG.pass();
            if (held >= 0) {
                Throwable why = result.getFailureThrowable();
                Throwable cause = why != null && why.getCause() != null ? why.getCause() : why;  // past the SDK's wrapper
                LOG.warn("trace export failed, dropped {} span(s): {}{}", batch.size(),
                        cause == null ? result.isDone() ? "the collector refused them" : "no answer in time"
                                : redactor.text(cause.toString()), LogThrottle.more(held));
            }
        }
    }

    /**
     * Stops the thread and gives what is queued one last export, all within {@link #SHUTDOWN}
     * (what does not fit is counted as dropped), then shuts the exporter down.
     */
    @Override
    public CompletableResultCode shutdown() {
        long end = System.nanoTime() + SHUTDOWN.toNanos();
        closing = true;
        worker.interrupt();
        try {
            worker.join(SHUTDOWN.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<ReadableSpan> rest = new ArrayList<>();
        queue.drainTo(rest);
        for (int from = 0; from < rest.size(); from += batchSize) {
            List<ReadableSpan> batch = rest.subList(from, Math.min(rest.size(), from + batchSize));
            long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
            if (left <= 0 || Thread.currentThread().isInterrupted()) {
                dropped.exportFailed(batch.size());
                continue;
            }
            try {
                export(batch, left);
            } catch (RuntimeException e) {
                dropped.exportFailed(batch.size());
            }
        }
        return exporter.shutdown();
    }

    @Override
    public CompletableResultCode forceFlush() {
        return CompletableResultCode.ofSuccess();
    }
}
