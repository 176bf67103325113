package dev.idemproxy.app.telemetry;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.opentelemetry.api.trace.SpanContext;

/**
 * The SERVER span of each of the last {@value #SIZE} sampled calls this process started, by call
 * id: what a replay's span links to (the call it repeats), and a conflict's (the call holding the
 * key). Bounded and in memory only: after a restart, on another proxy sharing the store, or for an
 * older call there is no link (the span still names the call in {@code idemproxy.call_id}). About
 * 250 bytes an entry. This class is thread-safe.
 */
final class RecentCalls {
    static final int SIZE = 4096;

    /** Evicted inline, on the thread that adds: no maintenance task of its own. */
    private final Cache<String, SpanContext> spans = Caffeine.newBuilder().maximumSize(SIZE).executor(Runnable::run).build();

    void started(String callId, SpanContext span) {
        if (span.isSampled()) {
            spans.put(callId, span);
        }
    }

    /** The span of call {@code callId}, or null when it is not known here. */
    SpanContext span(String callId) {
        return callId == null ? null : spans.getIfPresent(callId);
    }
}
