package dev.idemproxy.core.sim;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.AbstractScheduledEventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.MockTicker;
import io.netty.util.concurrent.Ticker;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One simulated event loop: a FIFO of tasks and a timer queue on the simulation's
 * {@link MockTicker}, run only when the simulator says, one task at a time. Every channel of
 * one simulated proxy loop (its clients and the upstream connections leased on it) is registered
 * here, as in the proxy, so the engine's ordering guarantees (FIFO per loop, run to completion)
 * hold as they do in production. {@link #inEventLoop()} is always true: the simulation has one
 * thread.
 *
 * <p>Why not {@code EmbeddedEventLoop}: an {@code EmbeddedChannel} runs its loop's whole queue at
 * the end of any outer channel operation, so a task queued by an engine callback ran nested
 * inside that callback's own {@code write} or {@code close} (Netty never does that), and each
 * {@code EmbeddedChannel} has a loop of its own, while the engine leases upstream connections on
 * the client's loop. Not thread-safe: one simulation thread.
 */
final class SimLoop extends AbstractScheduledEventExecutor implements EventLoop {
    private final MockTicker ticker;
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private final String name;
    private final Trace trace;
    private boolean frozen;

    SimLoop(String name, MockTicker ticker, Trace trace) {
        this.name = name;
        this.ticker = ticker;
        this.trace = trace;
    }

    String name() {
        return name;
    }

    /** A crashed proxy's loop: it never runs again. */
    void freeze() {
        frozen = true;
    }

    boolean frozen() {
        return frozen;
    }

    /** Moves the timers due by now to the task queue, in deadline order (as a Netty loop does before its tasks). */
    void moveDueTimers() {
        long now = getCurrentTimeNanos();
        for (Runnable t = pollScheduledTask(now); t != null; t = pollScheduledTask(now)) {
            tasks.add(t);
        }
    }

    boolean hasTask() {
        return !frozen && !tasks.isEmpty();
    }

    int queued() {
        return tasks.size();
    }

    /** The next timer's deadline on the ticker, or -1. */
    long nextTimer() {
        return frozen ? -1 : nextScheduledTaskDeadlineNanos();  // -1 when none (hasScheduledTasks() means "one is due")
    }

    /** Runs the first queued task to completion; what it throws is a violation of its own. */
    void runOne() {
        Runnable t = tasks.poll();
        try {
            t.run();
        } catch (Throwable e) {
            trace.thrown(name, e);
        }
    }

    /** Drops everything queued and every timer (the end of a run). */
    void clear() {
        tasks.clear();
        cancelScheduledTasks();
    }

    @Override
    public Ticker ticker() {
        return ticker;
    }

    @Override
    protected long getCurrentTimeNanos() {
        return ticker.nanoTime();
    }

    @Override
    public void execute(Runnable task) {
        tasks.add(task);
    }

    @Override
    public boolean inEventLoop() {
        return true;
    }

    @Override
    public boolean inEventLoop(Thread thread) {
        return true;
    }

    @Override
    public EventLoopGroup parent() {
        return null;
    }

    @Override
    public EventLoop next() {
        return this;
    }

    @Override
    public ChannelFuture register(Channel channel) {
        return register(new DefaultChannelPromise(channel, this));
    }

    @Override
    public ChannelFuture register(ChannelPromise promise) {
        promise.channel().unsafe().register(this, promise);
        return promise;
    }

    @Override
    @Deprecated
    public ChannelFuture register(Channel channel, ChannelPromise promise) {
        channel.unsafe().register(this, promise);
        return promise;
    }

    @Override
    public boolean isShuttingDown() {
        return false;
    }

    @Override
    public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Future<?> terminationFuture() {
        throw new UnsupportedOperationException();
    }

    @Override
    @Deprecated
    public void shutdown() {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean isShutdown() {
        return false;
    }

    @Override
    public boolean isTerminated() {
        return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return false;
    }
}
