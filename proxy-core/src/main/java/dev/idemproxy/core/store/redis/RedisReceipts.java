package dev.idemproxy.core.store.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.idemproxy.core.util.Checks;
import dev.idemproxy.core.store.CallPage;
import dev.idemproxy.core.store.CallQuery;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.ReceiptStore;
import dev.idemproxy.core.store.StoreCodec;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Receipts in Redis: each under {@code <prefix>receipt:{callId}} (SET with PX), and a per-business-id
 * sorted set {@code <prefix>receipts-by-biz:{bizId}} of sort keys (createdAt, call id), kept alive
 * as long as its longest-lived receipt, and one of every receipt's call id, {@code <prefix>calls}
 * (the recent calls: call ids begin with their start time; a native {@code ZADD} sent with the
 * receipt's {@code SET}, and trimmed to the newest {@link #RECENT_MAX} by one
 * {@code ZREMRANGEBYRANK} every {@link #TRIM_EVERY} index writes of this process, not on every
 * call). Index members whose receipt expired are skipped
 * on read and removed. A claim's or a completion's receipt is written by {@link RedisRecords} (in the
 * record's own script outside a cluster, with {@link #scriptKeys} and {@link #scriptArgs}). Part of
 * the {@link RedisStore} backend. Thread-safe.
 */
final class RedisReceipts implements ReceiptStore {
    /** At most this many index members are looked at per listing. */
    private static final int MAX_SCAN = 1000;

    /**
     * The index of recent calls is trimmed to this many, the newest; between two trims it grows by
     * at most about {@link #TRIM_EVERY} (every proxy sharing the Redis trims after as many of its own writes).
     */
    static final int RECENT_MAX = 100_000;
    /**
     * Index writes of this process between two trims of the index. A trim on every call cost a
     * command (or a script call) per receipt; the set's size is bounded all the same.
     */
    static final int TRIM_EVERY = 1_000;
    /** Index members read per round trip of a listing. */
    private static final int BATCH = 100;

    private static final RedisScript INDEX = new RedisScript("""
            redis.call('ZADD', KEYS[1], 0, ARGV[1])
            local ttl = tonumber(ARGV[2])
            if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
            return 1
            """, ScriptOutputType.INTEGER);

    private final RedisStore backend;
    private final RedisClusterAsyncCommands<String, byte[]> redis;
    private final String prefix;
    /** Index writes of this process since it last trimmed the index ({@link #indexed}). */
    private final AtomicInteger sinceTrim = new AtomicInteger();

    RedisReceipts(RedisStore backend, String prefix) {
        this.backend = backend;
        this.redis = backend.commands();
        this.prefix = prefix;
    }

    @Override
    public CompletionStage<Void> putReceipt(Receipt receipt, Duration ttl) {
        return backend.call(() -> put(receipt, ttl));
    }

    @Override
    public CompletionStage<Optional<Receipt>> receipt(String callId) {
        return backend.call(() -> get(callId));
    }

    @Override
    public CompletionStage<List<Receipt>> receiptsByBizId(String bizId, int limit) {
        Checks.requireArgument(limit >= 1, "limit " + limit + " (expected: >= 1)");
        return backend.call(() -> byBizId(bizId, limit));
    }

    private String key(String callId) {
        return prefix + "receipt:{" + callId + "}";
    }

    private String recentKey() {
        return prefix + "calls";
    }

    private String bizKey(String bizId) {
        return prefix + "receipts-by-biz:{" + bizId + "}";
    }

    /**
     * The keys and arguments that write {@code put} within one of {@code RecordScripts}' scripts
     * (after the record key and the script's own arguments): standalone and Sentinel only.
     */
    String[] scriptKeys(String recordKey, Receipt receipt) {
        return receipt.bizId() == null ? new String[] {recordKey, key(receipt.callId()), recentKey()}
                : new String[] {recordKey, key(receipt.callId()), recentKey(), bizKey(receipt.bizId())};
    }

    byte[][] scriptArgs(Receipt receipt, Duration ttl) {
        byte[] ms = Long.toString(Math.max(1, ttl.toMillis())).getBytes(UTF_8);
        return new byte[][] {StoreCodec.encodeReceipt(receipt), ms, receipt.sortKey().getBytes(UTF_8)};
    }

    /**
     * Writes the receipt: its key, its member of the index of recent calls and, with a business
     * id, its index entry, sent together (native commands but the business-id index's script).
     */
    CompletionStage<Void> put(Receipt receipt, Duration ttl) {
        long ms = Math.max(1, ttl.toMillis());
        byte[] sortKey = receipt.sortKey().getBytes(UTF_8);
        // sent together, not one after the other's answer: a caller that does not wait for them
        // (a native claim's receipt) relies on the commands leaving in order, at once (the one
        // exception: a script the server no longer knows is sent again a round trip later)
        CompletionStage<String> set = redis.set(key(receipt.callId()), StoreCodec.encodeReceipt(receipt), SetArgs.Builder.px(ms));
        CompletionStage<Long> recent = redis.zadd(recentKey(), 0, receipt.callId().getBytes(UTF_8));
        indexed();
        set = set.thenCombine(recent, (x, y) -> x);
        if (receipt.bizId() == null) {
            return set.thenApply(x -> null);
        }
        CompletionStage<Long> index = INDEX.run(redis, bizKey(receipt.bizId()), sortKey, Long.toString(ms).getBytes(UTF_8));
        return set.thenCombine(index, (x, y) -> null);
    }

    /**
     * Counts one write to the index of recent calls (this store's, or a claim script's) and, every
     * {@link #TRIM_EVERY}, trims the index to its newest {@link #RECENT_MAX} (sent, not awaited:
     * a trim that fails is made by the next one).
     */
    void indexed() {
        if (sinceTrim.incrementAndGet() >= TRIM_EVERY) {
            sinceTrim.set(0);
            redis.zremrangebyrank(recentKey(), 0, -(RECENT_MAX + 1L));
        }
    }

    @Override
    public CompletionStage<CallPage> recentCalls(CallQuery query) {
        return backend.call(() -> recent(query, query.cursor(), new ArrayList<>(), 0));
    }

    /** Reads the index from {@code before} (exclusive; null: the newest) a batch at a time until the page is full. */
    private CompletionStage<CallPage> recent(CallQuery q, String before, List<Receipt> found, int scanned) {
        int batch = Math.min(BATCH, CallQuery.MAX_SCAN - scanned);
        Range<byte[]> range = before == null ? Range.unbounded()
                : Range.from(Range.Boundary.unbounded(), Range.Boundary.excluding(before.getBytes(UTF_8)));
        return redis.zrevrangebylex(recentKey(), range, Limit.create(0, batch)).thenCompose(members -> {
            List<CompletableFuture<Optional<Receipt>>> reads = new ArrayList<>(members.size());
            for (byte[] m : members) {
                reads.add(get(new String(m, UTF_8)).toCompletableFuture());
            }
            return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).thenCompose(x -> {
                List<byte[]> stale = new ArrayList<>();
                String last = before;
                for (int i = 0; i < members.size(); i++) {
                    if (found.size() == q.limit()) {
                        return done(stale, new CallPage(found, last));
                    }
                    String member = new String(members.get(i), UTF_8);
                    last = member;
                    Optional<Receipt> r = reads.get(i).join();
                    if (r.isEmpty()) {
                        stale.add(members.get(i));
                    } else if (q.matches(r.get())) {
                        found.add(r.get());
                    }
                }
                int seen = scanned + members.size();
                if (members.size() < batch) {
                    return done(stale, new CallPage(found, null));
                }
                if (found.size() == q.limit() || seen >= CallQuery.MAX_SCAN) {
                    return done(stale, new CallPage(found, last));
                }
                done(stale, null);
                return recent(q, last, found, seen);
            });
        });
    }

    /** Removes index members whose receipt is gone or changed (best effort), and answers {@code page}. */
    private CompletionStage<CallPage> done(List<byte[]> stale, CallPage page) {
        if (!stale.isEmpty()) {
            redis.zrem(recentKey(), stale.toArray(byte[][]::new));  // the result does not matter
            stale.clear();
        }
        return CompletableFuture.completedFuture(page);
    }

    private CompletionStage<Optional<Receipt>> get(String callId) {
        return redis.get(key(callId)).thenApply(v -> Optional.ofNullable(v).map(StoreCodec::decodeReceipt));
    }

    private CompletionStage<List<Receipt>> byBizId(String bizId, int limit) {
        String index = bizKey(bizId);
        return redis.zrangebylex(index, Range.unbounded(), Limit.create(0, MAX_SCAN)).thenCompose(members -> {
            List<CompletableFuture<Optional<Receipt>>> reads = new ArrayList<>(members.size());
            for (byte[] m : members) {
                reads.add(get(new String(m, UTF_8).substring(17)).toCompletableFuture());
            }
            return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).thenApply(x -> {
                List<Receipt> found = new ArrayList<>();
                List<byte[]> stale = new ArrayList<>();
                for (int i = 0; i < members.size(); i++) {
                    Optional<Receipt> r = reads.get(i).join();
                    String member = new String(members.get(i), UTF_8);
                    if (r.isPresent() && bizId.equals(r.get().bizId()) && member.equals(r.get().sortKey())) {
                        if (found.size() < limit) {
                            found.add(r.get());
                        }
                    } else {
                        stale.add(members.get(i));
                    }
                }
                if (!stale.isEmpty()) {
                    redis.zrem(index, stale.toArray(byte[][]::new));  // best effort; the result does not matter
                }
                return found;
            });
        });
    }
}
