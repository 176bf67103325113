package dev.idemproxy.core.testing;

import dev.idemproxy.core.AdminPolicy;
import dev.idemproxy.core.HostPort;
import dev.idemproxy.core.ProxyConfig;
import dev.idemproxy.core.ProxyServer;
import dev.idemproxy.core.pipeline.ServerPolicy;
import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.idempotency.KeyPolicy;
import dev.idemproxy.core.retry.RetryBudgetPolicy;
import dev.idemproxy.core.retry.TaskPolicy;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.store.StorePolicy;
import dev.idemproxy.core.store.Stores;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * An in-process proxy for tests that order steps on the event loop: one route, the given store,
 * one io thread (every connection shares one loop), defaults for everything else.
 */
public final class OneLoopProxy {
    private OneLoopProxy() {}

    /** Protects POSTs with the client's key: {@code ttl}, a 30 s lease, duplicates wait up to 2 s, 1 MiB bodies. */
    public static IdempotencyPolicy protectPosts(Duration ttl) {
        return new IdempotencyPolicy(true, Set.of("POST"), KeyPolicy.DEFAULT, List.of(), List.of(), ttl, Duration.ofSeconds(30),
                IdempotencyPolicy.OnConcurrent.WAIT, Duration.ofSeconds(2), 1024 * 1024, 1024 * 1024);
    }

    /** Starts a proxy on a free loopback port; the caller stops it. */
    public static ProxyServer start(Route route, Stores stores) throws Exception {
        ServerPolicy oneLoop = new ServerPolicy(1, 16 * 1024, 8 * 1024);
        ProxyServer proxy = new ProxyServer(new ProxyConfig(new HostPort("127.0.0.1", 0), Duration.ofSeconds(1), AdminPolicy.DEFAULT,
                oneLoop, StorePolicy.DEFAULT, TaskPolicy.DEFAULT, RetryBudgetPolicy.DEFAULT, List.of(), List.of(route)), stores,
                new SimpleMeterRegistry());
        proxy.start();
        return proxy;
    }
}
