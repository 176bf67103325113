package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.route.RouteTable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What all client connections share: the live route table, whether the server is draining,
 * and how many calls are in flight. This class is thread-safe.
 */
public final class ServerState {
    private final AtomicReference<RouteTable> routes = new AtomicReference<>(RouteTable.empty());
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Calls started since the drain began (0 before): a drain's report counts them among those it waited for. */
    private final AtomicLong startedWhileDraining = new AtomicLong();
    private final Object drainSignal = new Object();
    private volatile boolean draining;

    public RouteTable routes() {
        return routes.get();
    }

    public void routes(RouteTable table) {
        routes.set(table);
    }

    public boolean draining() {
        return draining;
    }

    public void startDraining() {
        draining = true;
    }

    public int inFlight() {
        return inFlight.get();
    }

    /** Calls started since {@link #startDraining}. */
    public long startedWhileDraining() {
        return startedWhileDraining.get();
    }

    void callStarted() {
        inFlight.incrementAndGet();
        if (draining) {
            startedWhileDraining.incrementAndGet();
        }
    }

    void callEnded() {
        if (inFlight.decrementAndGet() == 0) {
            synchronized (drainSignal) {
                drainSignal.notifyAll();
            }
        }
    }

    /** Waits (off the event loops) until no call is in flight or the time is up. */
    public boolean awaitIdle(long millis) throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000L;
        synchronized (drainSignal) {
            while (inFlight.get() > 0) {
                long left = (end - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    return false;
                }
                drainSignal.wait(left);
            }
        }
        return true;
    }
}
