package dev.idemproxy.core.store.redis;

import io.netty.resolver.AddressResolver;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.InetSocketAddressResolver;
import io.netty.resolver.SimpleNameResolver;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Promise;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * How Lettuce resolves Redis host names: with the JDK's resolver (the hosts file, the system's
 * DNS settings and the JDK's cache, as for upstreams) on a thread of its own, the answer handed
 * to the connection's loop. Lettuce's default, Netty's DNS client, opens a UDP channel on every
 * event loop it connects from; on the io_uring transport that channel leaked a read buffer when
 * its loop shut down (Netty 4.2.18, seen in the Redis TLS tests), and on the proxy's own loops it
 * would be one more channel per loop for a name looked up at connect time only. IP literals are
 * answered at once. Thread-safe; {@link #close} stops the thread.
 */
final class OffLoopAddressResolverGroup extends AddressResolverGroup<InetSocketAddress> {
    private final ExecutorService lookups;

    OffLoopAddressResolverGroup() {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "idemproxy-redis-resolver");
            t.setDaemon(true);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
        this.lookups = pool;
    }

    @Override
    protected AddressResolver<InetSocketAddress> newResolver(EventExecutor executor) {
        return new InetSocketAddressResolver(executor, new OffLoopNameResolver(executor, lookups));
    }

    @Override
    public void close() {
        super.close();
        lookups.shutdownNow();
    }

    /** One loop's resolver: a lookup runs on the group's thread and completes the loop's promise. */
    private static final class OffLoopNameResolver extends SimpleNameResolver<InetAddress> {
        private final ExecutorService lookups;

        OffLoopNameResolver(EventExecutor executor, ExecutorService lookups) {
            super(executor);
            this.lookups = lookups;
        }

        @Override
        protected void doResolve(String host, Promise<InetAddress> promise) {
            run(promise, () -> InetAddress.getByName(host), host);
        }

        @Override
        protected void doResolveAll(String host, Promise<List<InetAddress>> promise) {
            run(promise, () -> Arrays.asList(InetAddress.getAllByName(host)), host);
        }

        private interface Lookup<T> {
            T get() throws UnknownHostException;
        }

        private <T> void run(Promise<T> promise, Lookup<T> lookup, String host) {
            if (NetUtil.isValidIpV4Address(host) || NetUtil.isValidIpV6Address(host)) {
                try {
                    promise.trySuccess(lookup.get());  // a literal: no lookup, nothing blocks
                } catch (UnknownHostException | RuntimeException e) {
                    promise.tryFailure(e);
                }
                return;
            }
            try {
                lookups.execute(() -> {
                    try {
                        promise.trySuccess(lookup.get());
                    } catch (UnknownHostException | RuntimeException e) {
                        promise.tryFailure(e);
                    }
                });
            } catch (RejectedExecutionException e) {
                promise.tryFailure(e);
            }
        }
    }
}
