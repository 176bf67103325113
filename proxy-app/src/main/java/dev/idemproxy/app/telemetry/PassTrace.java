package dev.idemproxy.app.telemetry;

import static dev.idemproxy.app.telemetry.SpanKeys.ERROR_TYPE;
import static dev.idemproxy.app.telemetry.SpanKeys.HTTP_RESPONSE_STATUS_CODE;

import dev.idemproxy.core.call.CallWatch;
import dev.idemproxy.core.call.ProxyCall;
import io.netty.handler.codec.http.HttpHeaders;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.common.Clock;
import java.util.concurrent.TimeUnit;

/**
 * The trace of a pass-through call ({@code telemetry.traces.passThrough}): a SERVER span from its
 * first byte to its end, the caller's {@code traceparent} its parent, and under it one CLIENT span
 * for its one trip upstream, whose context goes with it as {@code traceparent}. In the HTTP
 * conventions only (no idempotency, no tries of its own). Not thread-safe: told everything on the
 * call's event loop.
 */
final class PassTrace implements CallWatch {
    private final CallSpans spans;
    private final ProxyCall call;
    private final String name;
    private final Span server;
    private final long epochAnchor;
    private final long tickerAnchor;
    private Span upstream;

    PassTrace(CallSpans spans, Clock clock, ProxyCall call) {
        this.spans = spans;
        this.call = call;
        this.epochAnchor = clock.now();
        this.tickerAnchor = System.nanoTime();
        this.name = CallSpans.name(call, false);
        this.server = spans.server(call, name, TraceContexts.parent(TraceContexts.of(call.request().headers())),
                epoch(call.startNanos()));
    }

    private long epoch(long tickerNanos) {
        return epochAnchor + (tickerNanos - tickerAnchor);
    }

    @Override
    public void upstreamRequest(int n, HttpHeaders headers) {
        upstream = spans.client(call, name, server, epoch(System.nanoTime()), n, spans.upstreamUrl(call));
        TraceContexts.inject(upstream, headers);
    }

    /**
     * Ends both spans: {@code error.type} is the status when it is an error for the span's side (a
     * CLIENT's from 400, a SERVER's from 500), else {@code cut} for an answer that was cut off.
     */
    @Override
    public void passed(int status, boolean failed) {
        long now = epoch(System.nanoTime());
        if (upstream != null) {
            end(upstream, status, status >= 400 ? Integer.toString(status) : failed ? "cut" : null, now);
        }
        end(server, status, status >= 500 ? Integer.toString(status) : failed ? "cut" : null, now);
    }

    private static void end(Span span, int status, String error, long epochNanos) {
        if (span.isRecording()) {
            if (status != 0) {
                span.setAttribute(HTTP_RESPONSE_STATUS_CODE, status);
            }
            if (error != null) {
                span.setAttribute(ERROR_TYPE, error).setStatus(StatusCode.ERROR);
            }
        }
        span.end(epochNanos, TimeUnit.NANOSECONDS);
    }
}
