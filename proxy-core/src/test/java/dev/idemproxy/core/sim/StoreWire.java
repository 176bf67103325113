package dev.idemproxy.core.sim;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * One proxy's connection to the shared store: operations are applied in the order they were
 * issued (as on one Redis connection, or the embedded store's one thread), each when the
 * simulator takes it, and its answer completes the caller's stage on the simulation thread (as a
 * store thread would: what the engine chained on it with {@code whenComplete} runs there). An
 * operation may be answered at once instead (the memory store's way). A stall holds the head
 * (and so everything behind it) until a later time. Not thread-safe: one simulation thread.
 */
final class StoreWire {
    private record Op(long readyAt, Runnable apply) {}

    private final ArrayDeque<Op> ops = new ArrayDeque<>();
    private final SimTime time;
    private final String name;
    private final Trace trace;

    StoreWire(String name, SimTime time, Trace trace) {
        this.name = name;
        this.time = time;
        this.trace = trace;
    }

    /**
     * Runs {@code op} now ({@code delayNanos} &lt; 0: answered at once) or queues it, to be
     * applied no earlier than {@code delayNanos} from now; the stage completes with what it gives.
     */
    <T> CompletionStage<T> issue(long delayNanos, Supplier<CompletionStage<T>> op) {
        if (delayNanos < 0 && ops.isEmpty()) {
            return op.get();
        }
        CompletableFuture<T> answer = new CompletableFuture<>();
        ops.add(new Op(time.nanos() + Math.max(0, delayNanos), () -> op.get().whenComplete((v, e) -> {
            if (e != null) {
                answer.completeExceptionally(e);
            } else {
                answer.complete(v);
            }
        })));
        return answer;
    }

    boolean ready() {
        return !ops.isEmpty() && ops.peek().readyAt() <= time.nanos();
    }

    /** When the head becomes ready, or -1 when nothing is queued. */
    long nextReady() {
        return ops.isEmpty() ? -1 : ops.peek().readyAt();
    }

    boolean idle() {
        return ops.isEmpty();
    }

    void applyHead() {
        Op op = ops.poll();
        trace.step("store", name.hashCode(), ops.size(), name);
        try {
            op.apply().run();
        } catch (RuntimeException e) {
            trace.thrown("store " + name, e);
        }
    }
}
