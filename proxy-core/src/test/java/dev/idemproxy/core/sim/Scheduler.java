package dev.idemproxy.core.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs a {@link World}: at each step it gathers what could happen now — a loop's next task, a
 * delivery to a channel (bytes or the peer's close), the upstream reading what reached it, the
 * head of a proxy's store connection, the embedded store's next task, a world event that is due —
 * and the run's random picks one.
 * When nothing can happen, time jumps to the next timer, store answer or world event. The run
 * ends when every agent is done and nothing is left in flight, or at the step or time cap (a
 * violation: the run did not settle). Then every connection is closed and the loops drained.
 * Not thread-safe.
 */
final class Scheduler {
    static final int MAX_STEPS = 300_000;
    static final long MAX_NANOS = 30L * 60 * 1_000_000_000L;

    static final long GRACE_NANOS = 11L * 60 * 1_000_000_000L;

    private final World w;
    private long quietSince = -1;
    private final List<Object> ready = new ArrayList<>();

    Scheduler(World w) {
        this.w = w;
    }

    void run() {
        int steps = 0;
        while (true) {
            if (++steps > MAX_STEPS) {
                w.violation("did not settle within " + MAX_STEPS + " steps");
                break;
            }
            gather();
            if (ready.isEmpty()) {
                if (finished()) {
                    break;
                }
                long next = nextTime();
                if (next < 0 && quietSince >= 0) {
                    break;  // only an end the engine will not try again is missing: the invariants say so
                }
                if (next < 0 || next - w.time.nanos() > MAX_NANOS || w.time.elapsedMillis() > MAX_NANOS / 1_000_000) {
                    w.violation("did not settle: " + pendingReport());
                    break;
                }
                w.time.advanceTo(next);
                continue;
            }
            act(ready.get(ready.size() == 1 ? 0 : w.random.nextInt(ready.size())));
        }
        tearDown();
    }

    private void gather() {
        ready.clear();
        for (SimProxy p : w.proxies) {
            for (SimLoop l : p.loops) {
                if (!l.frozen()) {
                    l.moveDueTimers();
                    if (l.hasTask()) {
                        ready.add(l);
                    }
                }
            }
            if (p.wire.ready()) {
                ready.add(p.wire);
            }
        }
        for (SimChannel ch : w.channels) {
            if (ch.deliverable() && !((SimLoop) ch.eventLoop()).frozen()) {
                ready.add(ch);
            }
        }
        for (UpstreamServer s : w.upstream.servers()) {
            if (s.readable()) {
                ready.add(s);
            }
        }
        if (w.embedded != null) {
            for (SimStoreExecutor e : w.embedded.executors()) {
                if (e.ready()) {
                    ready.add(e);
                }
            }
        }
        if (w.eventDue()) {
            ready.add(w);
        }
    }

    private void act(Object o) {
        if (o instanceof SimLoop l) {
            w.trace.step("task", l.name().hashCode(), l.queued(), l.name());
            l.runOne();
        } else if (o instanceof SimChannel ch) {
            w.trace.step("deliver", ch.id().hashCode(), 0, ch.id().asShortText());
            ch.deliver();
        } else if (o instanceof StoreWire wire) {
            wire.applyHead();
        } else if (o instanceof UpstreamServer s) {
            s.read();
        } else if (o instanceof SimStoreExecutor e) {
            e.runOne();
        } else {
            w.runDueEvent();
        }
    }

    private boolean finished() {
        for (SimClient c : w.clients) {
            if (!c.done()) {
                return false;
            }
        }
        for (SimProxy p : w.proxies) {
            if (!p.wire.idle() || (!p.crashed() && p.inFlight() > 0)) {
                return false;
            }
        }
        if (!w.noEvents() || (w.embedded != null && !w.embedded.idle())) {
            return false;
        }
        // A call's end, receipt or dead letter the store failed is tried again on the loop
        // (StoreRetries.WRITES: about ten minutes in all) after its client was answered: the run
        // goes on for it, that long at most.
        if (quietSince < 0) {
            quietSince = w.time.nanos();
        }
        return !(w.claims.endPending(w::crashed) || w.writes.pending(w::crashed)) || w.time.nanos() - quietSince > GRACE_NANOS;
    }

    private long nextTime() {
        long next = -1;
        for (SimProxy p : w.proxies) {
            for (SimLoop l : p.loops) {
                next = min(next, l.nextTimer());
            }
            next = min(next, p.wire.nextReady());
        }
        if (w.embedded != null) {
            for (SimStoreExecutor e : w.embedded.executors()) {
                next = min(next, e.nextTime());
            }
        }
        return min(next, w.nextEvent());
    }

    private static long min(long a, long b) {
        return a < 0 ? b : b < 0 ? a : Math.min(a, b);
    }

    private String pendingReport() {
        StringBuilder b = new StringBuilder();
        for (SimClient c : w.clients) {
            b.append(c.done() ? "" : "an agent not done; ");
        }
        for (SimProxy p : w.proxies) {
            b.append("proxy ").append(p.index).append(": ").append(p.inFlight()).append(" in flight, store ")
                    .append(p.wire.idle() ? "idle" : "busy").append(p.crashed() ? " (crashed)" : "").append("; ");
        }
        return b.toString();
    }

    /** Every connection closes; what that queues runs (no time passes); then nothing is left on the loops. */
    private void tearDown() {
        for (SimChannel ch : w.channels) {
            ch.peerClose();
        }
        for (int i = 0; i < 100_000; i++) {
            gather();
            ready.remove(w);
            if (ready.isEmpty()) {
                break;
            }
            act(ready.get(0));
        }
        for (SimProxy p : w.proxies) {
            p.loops.forEach(SimLoop::clear);
        }
    }
}
