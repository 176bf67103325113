package dev.idemproxy.app.wiring;

import dev.idemproxy.core.store.IdempotencyStore;
import dev.idemproxy.core.store.StorePolicy;
import dev.idemproxy.core.store.embedded.EmbeddedIdempotencyStore;
import dev.idemproxy.core.store.memory.MemoryIdempotencyStore;
import java.time.Clock;

/** Opens the store that {@code store.type} names. Stateless. */
final class StoreFactory {
    private StoreFactory() {}

    static IdempotencyStore open(StorePolicy policy, Clock clock) throws StartupException {
        try {
            switch (policy.type()) {
                case MEMORY:
                    return MemoryIdempotencyStore.create(policy.memoryMaxEntries(), clock);
                case EMBEDDED:
                    return EmbeddedIdempotencyStore.open(policy.embeddedPath(), clock);
                case REDIS:
                default:
                    throw new StartupException("store.type redis is not available in this build yet"
                            + " (use embedded or memory)", null);
            }
        } catch (RuntimeException e) {
            throw new StartupException("cannot open the " + policy.type().spelling() + " store: " + e.getMessage(), e);
        }
    }
}
