package dev.idemproxy.app.wiring;

import dev.idemproxy.core.net.IoLoops;
import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.store.NearCachedStore;
import dev.idemproxy.core.store.StorePolicy;
import dev.idemproxy.core.StoreBackends;
import dev.idemproxy.core.store.Stores;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Clock;
import java.util.random.RandomGenerator;

/** Opens the stores that {@code store.type} names, with a one-line reason when it cannot. Stateless. */
final class StoreFactory {
    private StoreFactory() {}

    /**
     * Opens the backend and, when {@code store.nearCache.enabled}, puts the near-cache of ended
     * records in front of its record store, so that every user of the stores (the proxy and the
     * admin API's evictions alike) goes through the same near-cache. A Redis store's connections
     * run on {@code loops}, which the caller closes only after the stores. The stores' time sources
     * and randomness are given ({@code clock}, {@code ticker}, {@code random}).
     */
    static Stores open(StorePolicy policy, Clock clock, Ticker ticker, RandomGenerator random, IoLoops loops)
            throws StartupException {
        Stores backend;
        try {
            backend = StoreBackends.open(policy, clock, ticker, random, loops);
        } catch (RuntimeException e) {
            String where = policy.type() == StorePolicy.Type.REDIS ? " at " + policy.redis().redactedUri()
                    : policy.type() == StorePolicy.Type.EMBEDDED ? " at " + policy.embeddedPath() : "";
            throw new StartupException("cannot open the " + policy.type().spelling() + " store" + where + ": "
                    + e.getMessage(), e);
        }
        return policy.nearCache().enabled()
                ? backend.withRecords(NearCachedStore.wrap(backend.records(), policy.nearCache(), clock)) : backend;
    }

    /** Registers the stores' own metrics (the near-cache's hits and misses), if they have any. */
    static void bindMetrics(Stores stores, MeterRegistry registry) {
        if (stores.records() instanceof MeterBinder binder) {
            binder.bindTo(registry);
        }
    }
}
