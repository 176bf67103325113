package dev.idemproxy.core.store.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.idemproxy.core.store.TaskBudgetStore;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * Task retry counters in Redis: one integer under {@code <prefix>task:{<window key>}} (the hash
 * tag keeps each counter whole in a cluster), expiring by {@code PEXPIRE}. A charge is one Lua
 * script (GET, compare, INCR, PEXPIRE), so proxies sharing the server never overspend. Part of the
 * {@link RedisStore} backend. Immutable; thread-safe.
 */
final class RedisTaskCounters implements TaskBudgetStore {
    /** ARGV: maxRetries, ttlMs. Returns the count after charging, or -1 when spent. */
    private static final RedisScript CHARGE = new RedisScript("""
            local used = tonumber(redis.call('GET', KEYS[1]) or '0')
            if used >= tonumber(ARGV[1]) then return -1 end
            used = redis.call('INCR', KEYS[1])
            redis.call('PEXPIRE', KEYS[1], ARGV[2])
            return used
            """, ScriptOutputType.INTEGER);

    private final RedisStore backend;
    private final RedisClusterAsyncCommands<String, byte[]> redis;
    private final String prefix;

    RedisTaskCounters(RedisStore backend, String prefix) {
        this.backend = backend;
        this.redis = backend.commands();
        this.prefix = prefix;
    }

    private String key(String windowKey) {
        return prefix + "task:{" + windowKey + "}";
    }

    @Override
    public CompletionStage<Long> chargeTaskRetry(String windowKey, int maxRetries, Duration ttl) {
        return backend.call(() -> CHARGE.run(redis, key(windowKey), Integer.toString(maxRetries).getBytes(UTF_8),
                Long.toString(Math.max(1, ttl.toMillis())).getBytes(UTF_8)));
    }

    @Override
    public CompletionStage<Long> taskRetriesUsed(String windowKey) {
        return backend.call(() -> redis.get(key(windowKey)).thenApply(v -> v == null ? 0L : Long.parseLong(new String(v, UTF_8))));
    }
}
