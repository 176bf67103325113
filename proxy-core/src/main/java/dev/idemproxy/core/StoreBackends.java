package dev.idemproxy.core;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.net.IoLoops;
import dev.idemproxy.core.store.StorePolicy;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.embedded.EmbeddedStore;
import dev.idemproxy.core.store.memory.MemoryStore;
import dev.idemproxy.core.store.redis.RedisStore;
import dev.idemproxy.core.util.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Opens the backend a {@link StorePolicy} names: only its classes load (no Redis client for the
 * embedded store). Stateless.
 */
public final class StoreBackends {
    /** How long one Redis command may take before the store counts as unavailable. */
    public static final Duration REDIS_COMMAND_TIMEOUT = Duration.ofSeconds(2);

    private StoreBackends() {
    }

    /**
     * Opens the backend {@code policy} names. Blocking (opens files; waits a few seconds at most for
     * Redis): call it at start-up, not on an event loop. A Redis that cannot be reached yet does not
     * stop the start: the stores connect in the background and are unavailable until then
     * ({@code RedisStore.start}).
     *
     * @param clock  the time source of leases and expiry in the memory and embedded stores (Redis
     *               keeps them on the server's clock, and only stamps a record's informative times)
     * @param ticker the time source of waits and pacing (the embedded store thread, Redis's connect
     *               attempts and backoff deadlines)
     * @param random the jitter of the pauses between attempts to reach Redis; thread-safe
     * @param loops  the proxy's event loops, for a Redis store's connections (closed by the caller
     *               only after the stores); null: threads of their own
     * @throws StoreUnavailableException when the embedded store's directory cannot be opened (in
     *         use by another process, unusable), or Redis refused the credentials, its TLS
     *         certificate did not verify or it speaks another protocol than the URI says
     */
    public static Stores open(StorePolicy policy, Clock clock, Ticker ticker, RandomGenerator random, IoLoops loops) {
        requireNonNull(policy, "policy");
        requireNonNull(clock, "clock");
        requireNonNull(ticker, "ticker");
        requireNonNull(random, "random");
        switch (policy.type()) {
            case MEMORY:
                return MemoryStore.create(policy.memoryMaxEntries(), policy.memoryMaxBytes(), clock);
            case REDIS:
                return RedisStore.start(policy.redis(), REDIS_COMMAND_TIMEOUT, loops, clock, ticker, random);
            default:
                return EmbeddedStore.open(policy.embeddedPath(), clock, ticker, policy.embeddedSync());
        }
    }
}
