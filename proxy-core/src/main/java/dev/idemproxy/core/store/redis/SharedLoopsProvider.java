package dev.idemproxy.core.store.redis;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.net.IoLoops;
import io.lettuce.core.resource.EventLoopGroupProvider;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Hands Lettuce the proxy's own I/O event loops instead of a group of its own, so a store
 * command is written, and its answer read and handed to the waiting call, on a proxy event loop.
 * Lettuce never shuts them down: their owner does, after the store is closed. Thread-safe.
 */
final class SharedLoopsProvider implements EventLoopGroupProvider {
    private final IoLoops loops;

    SharedLoopsProvider(IoLoops loops) {
        this.loops = requireNonNull(loops, "loops");
    }

    /**
     * Whether Lettuce would open its connections with the socket channel of {@code loops}'
     * transport: an epoll channel cannot be registered with NIO loops, nor the other way round.
     */
    static boolean fits(IoLoops loops) {
        return io.lettuce.core.resource.Transports.socketChannelClass() == loops.transport().clientChannel();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends EventLoopGroup> T allocate(Class<T> type) {
        return (T) loops.group();
    }

    @Override
    public int threadPoolSize() {
        return loops.threads();
    }

    @Override
    public Future<Boolean> release(EventExecutorGroup group, long quietPeriod, long timeout, TimeUnit unit) {
        return ImmediateEventExecutor.INSTANCE.newSucceededFuture(Boolean.TRUE);  // not ours to stop
    }

    @Override
    public Future<Boolean> shutdown(long quietPeriod, long timeout, TimeUnit unit) {
        return ImmediateEventExecutor.INSTANCE.newSucceededFuture(Boolean.TRUE);  // not ours to stop
    }
}
