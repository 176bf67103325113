package dev.idemproxy.app.wiring;

import dev.idemproxy.core.net.IoLoops;
import dev.idemproxy.core.store.IdempotencyStore;
import dev.idemproxy.core.store.NearCachedStore;
import dev.idemproxy.core.store.StorePolicy;
import dev.idemproxy.core.Stores;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Clock;

/** Opens the store that {@code store.type} names, with a one-line reason when it cannot. Stateless. */
final class StoreFactory {
    private StoreFactory() {}

    /**
     * Opens the backend and, when {@code store.nearCache.enabled}, puts the near-cache of ended
     * records in front of it, so that every user of the store (the proxy and the admin API's
     * evictions alike) goes through the same near-cache. A Redis store's connections run on
     * {@code loops}, which the caller closes only after the store.
     */
    static IdempotencyStore open(StorePolicy policy, Clock clock, IoLoops loops) throws StartupException {
        IdempotencyStore backend;
        try {
            backend = Stores.open(policy, clock, loops);
        } catch (RuntimeException e) {
            String where = policy.type() == StorePolicy.Type.REDIS ? " at " + policy.redis().redactedUri()
                    : policy.type() == StorePolicy.Type.EMBEDDED ? " at " + policy.embeddedPath() : "";
            throw new StartupException("cannot open the " + policy.type().spelling() + " store" + where + ": "
                    + e.getMessage(), e);
        }
        return policy.nearCache().enabled() ? NearCachedStore.wrap(backend, policy.nearCache(), clock) : backend;
    }

    /** Registers the store's own metrics (the near-cache's hits and misses), if it has any. */
    static void bindMetrics(IdempotencyStore store, MeterRegistry registry) {
        if (store instanceof MeterBinder binder) {
            binder.bindTo(registry);
        }
    }
}
