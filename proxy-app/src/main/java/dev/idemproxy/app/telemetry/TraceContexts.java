package dev.idemproxy.app.telemetry;

import io.netty.handler.codec.http.HttpHeaders;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.List;

/**
 * W3C trace context in and out: the caller's {@code traceparent}/{@code tracestate} read from a
 * request's headers or from an MCP request's {@code params._meta}, and a span's written into the
 * headers of the request going upstream (replacing the caller's). Stateless.
 */
final class TraceContexts {
    static final String TRACEPARENT = "traceparent";
    static final String TRACESTATE = "tracestate";
    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();

    private static final TextMapGetter<HttpHeaders> HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(HttpHeaders carrier) {
            return carrier.names();
        }

        @Override
        public String get(HttpHeaders carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };
    private static final TextMapGetter<McpRequest> META = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(McpRequest carrier) {
            return List.of(TRACEPARENT, TRACESTATE);
        }

        @Override
        public String get(McpRequest carrier, String key) {
            return carrier == null ? null : TRACEPARENT.equals(key) ? carrier.traceparent()
                    : TRACESTATE.equals(key) ? carrier.tracestate() : null;
        }
    };
    private static final TextMapSetter<HttpHeaders> SET = (carrier, key, value) -> carrier.set(key, value);

    private TraceContexts() {}

    /** The caller's span context in {@code headers}; invalid when it sent none (or an unreadable one). */
    static SpanContext of(HttpHeaders headers) {
        if (!headers.contains(TRACEPARENT)) {
            return SpanContext.getInvalid();
        }
        return Span.fromContext(W3C.extract(Context.root(), headers, HEADERS)).getSpanContext();
    }

    /** The caller's span context in an MCP request's {@code params._meta}; invalid when it put none there. */
    static SpanContext of(McpRequest request) {
        if (request.traceparent() == null) {
            return SpanContext.getInvalid();
        }
        return Span.fromContext(W3C.extract(Context.root(), request, META)).getSpanContext();
    }

    /** A context whose parent is {@code remote}: the root when it is invalid. */
    static Context parent(SpanContext remote) {
        return remote.isValid() ? Context.root().with(Span.wrap(remote)) : Context.root();
    }

    /** Writes {@code span}'s context into {@code headers} as {@code traceparent} (and {@code tracestate}), replacing the caller's. */
    static void inject(Span span, HttpHeaders headers) {
        headers.remove(TRACESTATE);
        W3C.inject(Context.root().with(span), headers, SET);
    }
}
