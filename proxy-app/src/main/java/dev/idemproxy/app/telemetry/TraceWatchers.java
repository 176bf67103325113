package dev.idemproxy.app.telemetry;

import dev.idemproxy.core.call.CallIdentity;
import dev.idemproxy.core.call.CallWatch;
import dev.idemproxy.core.call.CallWatchers;
import dev.idemproxy.core.call.ProxyCall;
import io.opentelemetry.sdk.common.Clock;

/**
 * Makes each call's trace: a {@link CallTrace} per protected call, and, when
 * {@code telemetry.traces.passThrough} is on, a {@link PassTrace} per pass-through call. This
 * class is immutable and thread-safe.
 */
final class TraceWatchers implements CallWatchers {
    private final CallSpans spans;
    private final Clock clock;
    private final boolean passThrough;

    TraceWatchers(CallSpans spans, Clock clock, boolean passThrough) {
        this.spans = spans;
        this.clock = clock;
        this.passThrough = passThrough;
    }

    @Override
    public CallWatch watch(ProxyCall call, CallIdentity identity) {
        return new CallTrace(spans, clock, call, identity);
    }

    @Override
    public CallWatch passThrough(ProxyCall call) {
        return passThrough ? new PassTrace(spans, clock, call) : CallWatch.NONE;
    }
}
