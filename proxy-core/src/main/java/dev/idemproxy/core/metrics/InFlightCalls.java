package dev.idemproxy.core.metrics;

import java.util.concurrent.atomic.LongAdder;

/**
 * The calls of one route being served right now, read by the {@code idemproxy_in_flight{route}}
 * gauge. A call is counted once when it is routed and uncounted once when it ends (see
 * {@link dev.idemproxy.core.call.ProxyCall#end()}). A {@link LongAdder}, so event loops counting
 * calls of the same route do not contend. This class is thread-safe.
 */
public final class InFlightCalls {
    private final LongAdder count = new LongAdder();

    InFlightCalls() {
    }

    public void started() {
        count.increment();
    }

    public void ended() {
        count.decrement();
    }

    /** The calls in flight now (a sum of the event loops' cells, exact once they are quiet). */
    public long current() {
        return count.sum();
    }
}
