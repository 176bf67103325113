package dev.idemproxy.core.upstream;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Resolves upstream host names off the event loop: the JDK resolver blocks, so lookups run on
 * a small pool of their own and the result hops back to the caller's loop. IP literals skip
 * the pool. The JDK caches answers ({@code networkaddress.cache.ttl}). This class is thread-safe.
 */
final class HostResolver implements AutoCloseable {
    private final ExecutorService pool;

    HostResolver() {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor tpe = new ThreadPoolExecutor(4, 4, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "idemproxy-resolver-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        tpe.allowCoreThreadTimeOut(true);
        this.pool = tpe;
    }

    CompletableFuture<InetSocketAddress> resolve(String host, int port) {
        if (isIpLiteral(host)) {
            try {
                return CompletableFuture.completedFuture(new InetSocketAddress(InetAddress.getByName(host), port));
            } catch (UnknownHostException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new InetSocketAddress(InetAddress.getByName(host), port);
            } catch (UnknownHostException e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        }, pool);
    }

    static boolean isIpLiteral(String host) {
        if (host.indexOf(':') >= 0) {
            return true;
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (c != '.' && (c < '0' || c > '9')) {
                return false;
            }
        }
        return !host.isEmpty();
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
