package dev.idemproxy.app.wiring;

import dev.idemproxy.core.store.IdempotencyStore;
import dev.idemproxy.core.store.StorePolicy;
import dev.idemproxy.core.store.Stores;
import java.time.Clock;

/** Opens the store that {@code store.type} names, with a one-line reason when it cannot. Stateless. */
final class StoreFactory {
    private StoreFactory() {}

    static IdempotencyStore open(StorePolicy policy, Clock clock) throws StartupException {
        try {
            return Stores.open(policy, clock);
        } catch (RuntimeException e) {
            String where = policy.type() == StorePolicy.Type.REDIS ? " at " + policy.redis().redactedUri()
                    : policy.type() == StorePolicy.Type.EMBEDDED ? " at " + policy.embeddedPath() : "";
            throw new StartupException("cannot open the " + policy.type().spelling() + " store" + where + ": "
                    + e.getMessage(), e);
        }
    }
}
