package dev.idemproxy.core.store.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.DeadLetterPage;
import dev.idemproxy.core.store.DeadLetterStore;
import dev.idemproxy.core.store.StoreCodec;
import dev.idemproxy.core.util.Checks;
import io.lettuce.core.KeyValue;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The dead-letter queue in Redis, in one cluster slot (hash tag {@code {dlq}}): a hash of encoded
 * entries by id, a hash of sort keys by id, and a sorted set of sort keys (all scores 0, so it is
 * ordered by the sort key's bytes: failedAt, then id). Adds and deletes are Lua scripts, so the
 * three stay in step. Part of the {@link RedisStore} backend. Immutable; thread-safe.
 */
final class RedisDeadLetters implements DeadLetterStore {
    private static final RedisScript ADD = new RedisScript("""
            local old = redis.call('HGET', KEYS[3], ARGV[1])
            if old then redis.call('ZREM', KEYS[2], old) end
            redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
            redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
            redis.call('ZADD', KEYS[2], 0, ARGV[2])
            return 1
            """, ScriptOutputType.INTEGER);

    private static final RedisScript DELETE = new RedisScript("""
            local old = redis.call('HGET', KEYS[3], ARGV[1])
            if not old then return 0 end
            redis.call('ZREM', KEYS[2], old)
            redis.call('HDEL', KEYS[1], ARGV[1])
            redis.call('HDEL', KEYS[3], ARGV[1])
            return 1
            """, ScriptOutputType.INTEGER);

    private final RedisStore backend;
    private final RedisClusterAsyncCommands<String, byte[]> redis;
    private final String entries;
    private final String order;
    private final String[] keys;

    RedisDeadLetters(RedisStore backend, String prefix) {
        this.backend = backend;
        this.redis = backend.commands();
        this.entries = prefix + "{dlq}:entries";
        this.order = prefix + "{dlq}:order";
        this.keys = new String[] {entries, order, prefix + "{dlq}:sortkeys"};
    }

    @Override
    public CompletionStage<Void> addDeadLetter(DeadLetter entry) {
        return backend.call(() -> add(entry));
    }

    @Override
    public CompletionStage<DeadLetterPage> deadLetters(String cursor, int limit) {
        Checks.requireArgument(limit >= 1, "limit " + limit + " (expected: >= 1)");
        return backend.call(() -> page(cursor, limit));
    }

    @Override
    public CompletionStage<Optional<DeadLetter>> deadLetter(String id) {
        return backend.call(() -> get(id));
    }

    @Override
    public CompletionStage<Boolean> deleteDeadLetter(String id) {
        return backend.call(() -> delete(id));
    }

    @Override
    public CompletionStage<Long> deadLetterCount() {
        return backend.call(() -> redis.zcard(order));
    }

    private CompletionStage<Void> add(DeadLetter entry) {
        return ADD.<Long>run(redis, keys, entry.id().getBytes(UTF_8), entry.sortKey().getBytes(UTF_8),
                StoreCodec.encodeDeadLetter(entry)).thenApply(x -> null);
    }

    private CompletionStage<DeadLetterPage> page(String cursor, int limit) {
        Range<byte[]> range = Range.from(
                cursor == null ? Range.Boundary.unbounded() : Range.Boundary.excluding(cursor.getBytes(UTF_8)),
                Range.Boundary.unbounded());
        return redis.zrangebylex(order, range, Limit.create(0, limit + 1L)).thenCompose(sortKeys -> {
            boolean more = sortKeys.size() > limit;
            List<byte[]> page = more ? sortKeys.subList(0, limit) : sortKeys;
            if (page.isEmpty()) {
                return java.util.concurrent.CompletableFuture.completedFuture(new DeadLetterPage(List.of(), null));
            }
            String[] ids = page.stream().map(k -> idOf(new String(k, UTF_8))).toArray(String[]::new);
            return redis.hmget(entries, ids).thenApply(values -> {
                List<DeadLetter> found = new ArrayList<>(values.size());
                for (KeyValue<String, byte[]> kv : values) {
                    if (kv.hasValue()) {
                        found.add(StoreCodec.decodeDeadLetter(kv.getValue()));
                    }
                }
                String next = more ? new String(page.get(page.size() - 1), UTF_8) : null;
                return new DeadLetterPage(found, next);
            });
        });
    }

    private CompletionStage<Optional<DeadLetter>> get(String id) {
        return redis.hget(entries, id).thenApply(v -> Optional.ofNullable(v).map(StoreCodec::decodeDeadLetter));
    }

    private CompletionStage<Boolean> delete(String id) {
        return DELETE.<Long>run(redis, keys, id.getBytes(UTF_8)).thenApply(n -> n == 1L);
    }

    /** The id inside a sort key ({@code <16 digits> <id>}). */
    private static String idOf(String sortKey) {
        return sortKey.substring(17);
    }
}
