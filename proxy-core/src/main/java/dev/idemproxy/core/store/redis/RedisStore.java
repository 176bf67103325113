package dev.idemproxy.core.store.redis;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.util.Checks;
import dev.idemproxy.core.util.Failures;
import dev.idemproxy.core.net.IoLoops;
import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.retry.Backoff;
import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.Stores;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis backend, on Lettuce's asynchronous API: one connection ({@link RedisClients}) shared
 * by its four stores ({@link RedisRecords}, {@link RedisReceipts}, {@link RedisDeadLetters},
 * {@link RedisTaskCounters}), which run their commands through {@link #call}.
 *
 * <p><b>Keys.</b> A record is one string under {@code <prefix>rec:{<record id>}}
 * ({@link RecordValue}'s layout); dead letters share one slot (hash tag {@code {dlq}}); receipts
 * are one key each plus a per-business-id index; task retry counters are one integer each. Lease
 * ends and expiry are the server's clock (the proxies' clocks only stamp a record's informative
 * creation and completion times).
 *
 * <p><b>Durability</b> is Redis's own (RDB/AOF, asynchronous replication) and nothing more: no
 * {@code WAIT}, so a failover can lose the last writes. An evicting {@code maxmemory-policy}
 * silently loses records, so a check on every connect warns unless it is {@code noeviction}.
 *
 * <p><b>Start.</b> {@link #connect} connects or throws; {@link #start}, which the proxy uses,
 * returns stores that connect in the background while Redis is away ({@link ConnectingRedisStore}),
 * and throws only for what no retry mends (credentials refused, a certificate that does not verify).
 *
 * <p><b>Failures.</b> Every failure completes the stage with {@link StoreUnavailableException}.
 * {@link #isAvailable()} is the main connection's state (for a cluster, the seed connection's,
 * not every node's; for sentinel, the last once-a-second {@code PING} to the master's). Stages
 * complete on Lettuce's I/O threads. Thread-safe.
 */
public final class RedisStore {
    private static final Logger log = LoggerFactory.getLogger(RedisStore.class);
    private static final Duration HEARTBEAT = Duration.ofSeconds(1);

    /** Lettuce's resources and the resolver group, which this store shuts down when it closes. */
    private final LettuceResources lettuce;
    private final ClientResources resources;
    private final AutoCloseable client;
    private final StatefulConnection<String, byte[]> connection;
    private final RedisClusterAsyncCommands<String, byte[]> redis;
    private final Stores stores;
    private volatile boolean closed;
    /** Sentinel mode only: the last heartbeat's outcome (see {@link #isAvailable()}); null in other modes. */
    private volatile Boolean lastPingOk;
    private ScheduledFuture<?> heartbeat;

    private RedisStore(LettuceResources lettuce, RedisClients.Connected connected, String prefix, Clock clock, Ticker ticker,
            RandomGenerator random) {
        this.lettuce = lettuce;
        this.resources = lettuce.resources();
        this.client = connected.client();
        this.connection = connected.connection();
        this.redis = connected.commands();
        RedisReceipts receipts = new RedisReceipts(this, prefix);
        this.stores = new Stores(new RedisRecords(this, prefix, connected.cluster(), receipts, clock, ticker, random), receipts,
                new RedisDeadLetters(this, prefix), new RedisTaskCounters(this, prefix));
    }

    /**
     * Connects to Redis as the policy says and checks {@code maxmemory-policy}. Blocking: call it at
     * start-up, not on an event loop.
     *
     * @param commandTimeout how long one command may take before it fails as unavailable
     * @throws StoreUnavailableException when Redis cannot be reached
     */
    public static Stores connect(RedisPolicy policy, Duration commandTimeout) {
        return connect(policy, commandTimeout, null);
    }

    /**
     * As {@link #connect(RedisPolicy, Duration)}, with Lettuce's connections on {@code loops}
     * (when its transport is the one Lettuce uses; otherwise, and when null, on Lettuce's own
     * threads). The caller closes {@code loops}, and only after these stores.
     */
    public static Stores connect(RedisPolicy policy, Duration commandTimeout, IoLoops loops) {
        requireNonNull(policy, "policy");
        Checks.positive(commandTimeout, "commandTimeout");
        LettuceResources lettuce = LettuceResources.create(loops);
        try {
            return connectOnce(policy, commandTimeout, lettuce, Clock.systemUTC(), Ticker.system(), Backoff.threadLocalRandom()).stores;
        } catch (RuntimeException e) {
            lettuce.close();
            throw e;
        }
    }

    /**
     * As {@link #start(RedisPolicy, Duration, IoLoops, Clock, Ticker, RandomGenerator)} on the
     * system clock, the JVM's ticker and thread-local randomness.
     */
    public static Stores start(RedisPolicy policy, Duration commandTimeout, IoLoops loops) {
        return start(policy, commandTimeout, loops, Clock.systemUTC(), Ticker.system(), Backoff.threadLocalRandom());
    }

    /**
     * Stores that connect in the background, so that the proxy can start while Redis is away:
     * until they have connected, every operation fails at once with {@link StoreUnavailableException}
     * and {@link Stores#isAvailable()} is false; they try again with growing pauses
     * ({@link ConnectAttempts}) and, once connected, are the stores {@link #connect} would have
     * returned ({@code maxmemory-policy} checked, Sentinel heartbeat, cluster nodes). This call
     * waits up to 5 s for the first attempt, so a Redis that is up is connected when it returns,
     * but only 500 ms after the attempt began to connect while it has made no TCP connection (an
     * address that drops SYNs holds it until the connect times out). Blocking for that long: call
     * it at start-up, not on an event loop.
     *
     * @param clock  the time source of the records' informative creation and completion times
     * @param ticker the time source of waits and backoff deadlines
     * @param random the jitter of the pauses between attempts; thread-safe
     * @throws StoreUnavailableException when the first attempt fails for a reason that trying again
     *         will not mend: Redis refused the credentials, its TLS certificate did not verify, or
     *         the server speaks another protocol than the URI says
     */
    public static Stores start(RedisPolicy policy, Duration commandTimeout, IoLoops loops, Clock clock, Ticker ticker,
            RandomGenerator random) {
        requireNonNull(policy, "policy");
        Checks.positive(commandTimeout, "commandTimeout");
        return ConnectingRedisStore.start(policy, commandTimeout, LettuceResources.create(loops), clock, ticker, random).stores();
    }

    /**
     * One attempt to connect on {@code lettuce}, which the store owns once connected (its
     * {@link #close()} shuts them down); on failure they are left as they were, for another
     * attempt or for the caller to close. Blocking.
     */
    static RedisStore connectOnce(RedisPolicy policy, Duration commandTimeout, LettuceResources lettuce, Clock clock, Ticker ticker,
            RandomGenerator random) {
        RedisClients.Connected connected = RedisClients.connect(policy, commandTimeout, lettuce.resources());
        try {
            RedisStore store = new RedisStore(lettuce, connected, policy.keyPrefix(), clock, ticker, random);
            if (connected.masterReplica()) {
                store.startHeartbeat();
            }
            store.checkEvictionPolicy(policy, commandTimeout);
            return store;
        } catch (RedisException e) {
            RedisClients.closeQuietly(connected.client());
            throw RedisClients.failed(policy, commandTimeout, e);
        }
    }

    Stores stores() {
        return stores;
    }

    /** Lettuce's event executor, for work scheduled beside the connection. */
    ScheduledExecutorService eventExecutor() {
        return resources.eventExecutorGroup();
    }

    /** The connection's commands, for the stores' commands and scripts. */
    RedisClusterAsyncCommands<String, byte[]> commands() {
        return redis;
    }

    /**
     * A master/replica connection reports itself open even while its master is down, so in sentinel
     * mode {@link #isAvailable()} is the outcome of a {@code PING} to the master every
     * {@link #HEARTBEAT} (run on Lettuce's event executor) or of any later command that succeeded.
     */
    private void startHeartbeat() {
        lastPingOk = Boolean.TRUE;
        heartbeat = resources.eventExecutorGroup().scheduleWithFixedDelay(() -> {
            if (!closed) {
                redis.ping().whenComplete((pong, error) -> lastPingOk = error == null);
            }
        }, HEARTBEAT.toMillis(), HEARTBEAT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Warns when Redis may evict records, on every connect (a store that connected in the
     * background warns then). Waits for the answer (at most the command timeout), so a store
     * connected at start warns before the proxy reports itself started; a Redis that refuses
     * {@code CONFIG} (managed services often do) is let through with a debug line.
     */
    private void checkEvictionPolicy(RedisPolicy policy, Duration commandTimeout) {
        Map<String, String> config;
        try {
            config = redis.configGet("maxmemory-policy").toCompletableFuture()
                    .get(commandTimeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            log.debug("cannot read maxmemory-policy from {} (CONFIG may be disabled): {}", policy.redactedUri(), e.toString());
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        String value = config.get("maxmemory-policy");
        if (value != null && !value.equals("noeviction")) {
            log.warn("Redis at {} has maxmemory-policy {}: it may evict idempotency records and re-execute duplicates;"
                    + " set maxmemory-policy noeviction", policy.redactedUri(), value);
        }
    }

    boolean isAvailable() {
        Boolean pingOk = lastPingOk;
        return !closed && (pingOk == null ? connection.isOpen() : pingOk);
    }

    boolean isClosed() {
        return closed;
    }

    /** Closes the connection, the client and its threads. Blocking. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (heartbeat != null) {
            heartbeat.cancel(false);
        }
        try {
            connection.close();
            client.close();
        } catch (Exception e) {
            log.debug("closing Redis client: {}", e.toString());
        } finally {
            lettuce.close();
        }
    }

    /** Runs a command chain, turning every failure into {@link StoreUnavailableException}. */
    <T> CompletionStage<T> call(Supplier<CompletionStage<T>> op) {
        if (closed) {
            return CompletableFuture.failedFuture(new StoreUnavailableException("Redis store is closed"));
        }
        CompletionStage<T> stage;
        try {
            stage = op.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(unavailable(e));
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        stage.whenComplete((value, error) -> {
            if (error == null) {
                if (lastPingOk != null) {
                    lastPingOk = Boolean.TRUE;  // an answer is as good as a PONG
                }
                result.complete(value);
            } else {
                result.completeExceptionally(unavailable(error));
            }
        });
        return result;
    }

    private static Throwable unavailable(Throwable error) {
        Throwable cause = Failures.cause(error);
        if (cause instanceof StoreUnavailableException || cause instanceof IllegalArgumentException) {
            return cause;
        }
        return new StoreUnavailableException("Redis: " + cause.getMessage(), cause);
    }
}
