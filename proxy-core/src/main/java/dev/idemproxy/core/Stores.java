package dev.idemproxy.core;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.net.IoLoops;
import dev.idemproxy.core.store.IdempotencyStore;
import dev.idemproxy.core.store.StorePolicy;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.embedded.EmbeddedIdempotencyStore;
import dev.idemproxy.core.store.memory.MemoryIdempotencyStore;
import dev.idemproxy.core.store.redis.RedisIdempotencyStore;
import java.time.Clock;
import java.time.Duration;

/** Opens the backend a {@link StorePolicy} names. Stateless. */
public final class Stores {
    /** How long one Redis command may take before the store counts as unavailable. */
    public static final Duration REDIS_COMMAND_TIMEOUT = Duration.ofSeconds(2);

    private Stores() {
    }

    /**
     * Opens the store. Blocking (opens files; waits a few seconds at most for Redis): call it at
     * start-up, not on an event loop. A Redis that cannot be reached yet does not stop the start:
     * the store connects in the background and is unavailable until then
     * ({@link RedisIdempotencyStore#start}).
     *
     * @param clock the time source of the memory and embedded stores (Redis uses the server's clock)
     * @param loops the proxy's event loops, for a Redis store's connections (closed by the caller
     *              only after the store); null: threads of their own
     * @throws StoreUnavailableException when the embedded store's directory cannot be opened (in
     *         use by another process, unusable), or Redis refused the credentials, its TLS
     *         certificate did not verify or it speaks another protocol than the URI says
     */
    public static IdempotencyStore open(StorePolicy policy, Clock clock, IoLoops loops) {
        requireNonNull(policy, "policy");
        requireNonNull(clock, "clock");
        switch (policy.type()) {
            case MEMORY:
                return MemoryIdempotencyStore.create(policy.memoryMaxEntries(), policy.memoryMaxBytes(), clock);
            case REDIS:
                return RedisIdempotencyStore.start(policy.redis(), REDIS_COMMAND_TIMEOUT, loops);
            default:
                return EmbeddedIdempotencyStore.open(policy.embeddedPath(), clock);
        }
    }
}
