package dev.idemproxy.app.telemetry;

import dev.idemproxy.core.call.CallIdentity;
import dev.idemproxy.core.call.CallWatch;
import dev.idemproxy.core.call.CallWatchers;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.util.LogThrottle;
import io.opentelemetry.sdk.common.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes each call's trace: a {@link CallTrace} per protected call, and, when
 * {@code telemetry.traces.passThrough} is on, a {@link PassTrace} per pass-through call. This
 * class is immutable and thread-safe.
 */
final class TraceWatchers implements CallWatchers {
    private static final Logger LOG = LoggerFactory.getLogger(TraceWatchers.class);
    private static final LogThrottle FAILED = LogThrottle.every(Duration.ofMinutes(1));
    private final CallSpans spans;
    private final Clock clock;
    private final boolean passThrough;

    TraceWatchers(CallSpans spans, Clock clock, boolean passThrough) {
        this.spans = spans;
        this.clock = clock;
        this.passThrough = passThrough;
    }

    /** The call's trace; none, with a WARN line (at most one per minute), if it cannot be started: a call never fails for its trace. */
    @Override
    public CallWatch watch(ProxyCall call, CallIdentity identity) {
        try {
            return new CallTrace(spans, clock, call, identity);
        } catch (RuntimeException e) {
            long held = FAILED.pass();
            if (held >= 0) {
                LOG.warn("[call={}] not traced: {}{}", identity.callId(), e.toString(), LogThrottle.more(held));
            }
            return CallWatch.NONE;
        }
    }

    @Override
    public CallWatch passThrough(ProxyCall call) {
        return passThrough ? new PassTrace(spans, clock, call) : CallWatch.NONE;
    }
}
