package dev.idemproxy.core.call;

import dev.idemproxy.core.util.LogThrottle;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A store outage fails every call that claims: one WARN line per 10 s says so (each call's own
 * line says what it got). Thread-safe.
 */
final class StoreOutageLog {
    private static final Logger LOG = LoggerFactory.getLogger(Claiming.class);
    private static final LogThrottle THROTTLE = LogThrottle.every(Duration.ofSeconds(10));

    private StoreOutageLog() {
    }

    static void claimFailed(String callId, Throwable error) {
        long held = THROTTLE.pass();
        if (held >= 0) {
            LOG.warn("[call={}] idempotency store unavailable: {}{}", callId, error.toString(), LogThrottle.more(held));
        }
    }
}
