package dev.idemproxy.app.telemetry;

import io.opentelemetry.api.trace.SpanContext;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The SERVER spans of recent sampled calls this process started, by call id: what a replay's span
 * links to (the call it repeats), and a conflict's (the call holding the key). {@value #SIZE}
 * slots, a call id's hash choosing its slot and a later call taking it over: one array write a
 * call, no lock, no eviction work. In memory only: after a restart, on another proxy sharing the
 * store, or for a call whose slot was taken since, there is no link (the span still names the call
 * in {@code idemproxy.call_id}). This class is thread-safe.
 */
final class RecentCalls {
    static final int SIZE = 4096;

    private record Entry(String callId, SpanContext span) {}

    private final AtomicReferenceArray<Entry> slots = new AtomicReferenceArray<>(SIZE);

    void started(String callId, SpanContext span) {
        if (span.isSampled()) {
            slots.setRelease(slot(callId), new Entry(callId, span));
        }
    }

    /** The span of call {@code callId}, or null when it is not known here. */
    SpanContext span(String callId) {
        if (callId == null) {
            return null;
        }
        Entry e = slots.getAcquire(slot(callId));
        return e != null && e.callId().equals(callId) ? e.span() : null;
    }

    private static int slot(String callId) {
        int h = callId.hashCode();
        return (h ^ (h >>> 16)) & (SIZE - 1);
    }
}
