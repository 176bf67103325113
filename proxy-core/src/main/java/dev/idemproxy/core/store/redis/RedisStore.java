package dev.idemproxy.core.store.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.Checks;
import dev.idemproxy.core.Failures;
import dev.idemproxy.core.IoLoops;
import dev.idemproxy.core.store.ClaimAnswerLostException;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.DeadLetterPage;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.DeadLetterStore;
import dev.idemproxy.core.store.ReceiptStore;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.TaskBudgetStore;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StoreCodec;
import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.StoredResponse;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.masterreplica.MasterReplica;
import io.lettuce.core.masterreplica.StatefulRedisMasterReplicaConnection;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis store, on Lettuce's asynchronous API: standalone ({@code redis://}, {@code rediss://}),
 * sentinel ({@code redis-sentinel://}) or cluster.
 *
 * <p><b>Atomicity and time.</b> A record is one string under {@code <prefix>rec:{<record id>}}
 * ({@link RecordValue}'s layout). A claim is one native {@code SET ... NX PX ... GET}: it claims a
 * free key, or answers with the record there, which settles a duplicate of a completed call (or a
 * mismatch) at once. Only a record found in flight goes on to a Lua script, because whether its
 * lease has lapsed is read from the key's {@code PTTL} and the server's {@code TIME}; before Redis
 * 7.0 (no {@code NX} with {@code GET}) every claim is that script. Every owner-checked write is a
 * script too ({@code EVALSHA}, falling back to {@code EVAL}), so each is atomic; a renewal or an end
 * that finds the key absent (Redis restarted empty, flushed or evicted it) writes it back from the
 * owner's {@link OwnedClaim} in the same script, with no extra round trip, and logs it. Lease ends and
 * expiry are the server's clock: the proxies' clocks play no part (they only stamp the informative
 * creation time of a native claim). Expiry is the key's {@code PX}. Dead letters share one slot
 * (hash tag {@code {dlq}}); receipts are one key each plus a per-business-id index; task retry
 * counters are one integer each, charged by a script. A completion's receipt, and a scripted claim's, is written by the record's own
 * script in standalone and Sentinel mode (atomic with the record); a native claim's is a second
 * command sent right behind it on the same connection; in a cluster the receipt's keys live in
 * other slots, so it is a second command right after, awaited.
 *
 * <p><b>Sentinel</b> mode uses Lettuce's master/replica connection, which subscribes to every
 * Sentinel and re-reads the topology 5 s after the first failover event it sees (its debounce), so
 * for up to about 5 s after a switch commands may still reach the old master; all commands go to
 * the master. <b>TLS</b> ({@code rediss://}) verifies the certificate and host name against
 * {@code tlsCaFile} when set, else the JVM's trust store.
 *
 * <p><b>Durability</b> is Redis's own (RDB/AOF, asynchronous replication) and nothing more: no
 * {@code WAIT}, so a failover can lose the last writes.
 * An evicting {@code maxmemory-policy} silently loses records, so a start-up check warns unless it is
 * {@code noeviction}.
 *
 * <p><b>Start.</b> {@link #connect} connects or throws; {@link #start}, which the proxy uses,
 * returns a store that connects in the background while Redis is away ({@link ConnectingRedisStore}),
 * and throws only for what no retry mends (credentials refused, a certificate that does not verify).
 *
 * <p><b>Failures.</b> Commands time out after {@code commandTimeout}. While disconnected, standalone
 * and sentinel commands fail at once (Lettuce reconnects in the background); cluster commands wait
 * for the reconnect up to {@code commandTimeout}. Every failure completes the stage with
 * {@link StoreUnavailableException} (a native claim that was sent and not answered with its
 * {@link ClaimAnswerLostException} subclass, which {@link #releaseLostClaim} can undo);
 * {@link #isAvailable()} is the main connection's state (for a
 * cluster, the seed connection's, not every node's; for sentinel, the last once-a-second
 * {@code PING} to the master's). Stages complete on Lettuce's I/O threads. Thread-safe.
 */
public final class RedisStore implements RecordStore, ReceiptStore, DeadLetterStore, TaskBudgetStore {
    private static final Logger log = LoggerFactory.getLogger(RedisStore.class);
    private static final Duration HEARTBEAT = Duration.ofSeconds(1);
    /** How long a cluster's node connections may take when it connects: at most Lettuce's connect timeout (10 s), and a little. */
    private static final Duration NODE_CONNECT_WAIT = Duration.ofSeconds(11);
    /** How many releases of lost claims may wait for Redis at once. */
    private static final int MAX_LOST_CLAIMS = 10_000;
    /**
     * How long a release ({@link #evict(RecordKey, String)}) keeps the settled call from writing
     * its record back: longer than that call can still be writing. A call's dead letter is written as the call settles, next to its end,
     * and the end is retried for about ten minutes while the store fails
     * ({@code RecordedProtection.RECORD_TRIES}: 25 tries, pauses up to 30 s, each try up to the
     * command timeout); a renewal sent before it may wait the command timeout for a cluster node.
     */
    static final Duration EVICTION_FENCE = Duration.ofMinutes(15);
    private static final long LOST_CLAIM_FIRST_RETRY_MILLIS = 100;
    private static final long LOST_CLAIM_MAX_RETRY_MILLIS = 2_000;
    private static final RedisCodec<String, byte[]> CODEC = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);

    /** Lettuce's resources and the resolver group, which this store shuts down when it closes. */
    private final LettuceResources lettuce;
    private final ClientResources resources;
    private final AutoCloseable client;
    private final StatefulConnection<String, byte[]> connection;
    private final RedisClusterAsyncCommands<String, byte[]> redis;
    private final String prefix;
    private final RedisReceipts receipts;
    private final RedisDeadLetters deadLetters;
    private final RedisTaskCounters taskCounters;
    /** Cluster mode: a record and its receipt hash to different slots, so no script may write both. */
    private final boolean cluster;
    private volatile boolean closed;
    /** Whether a claim starts with the native {@code SET ... NX GET} (Redis 7.0 on) rather than the script. */
    private volatile boolean nativeClaims = true;
    /** Sentinel mode only: the last heartbeat's outcome (see {@link #isAvailable()}); null in other modes. */
    private volatile Boolean lastPingOk;
    private ScheduledFuture<?> heartbeat;
    /** Releases of claims whose answers were lost ({@link #releaseLostClaim}) now waiting for Redis. */
    private final AtomicInteger lostClaims = new AtomicInteger();
    private final AtomicBoolean lostClaimsOverflowLogged = new AtomicBoolean();

    private RedisStore(LettuceResources lettuce, AutoCloseable client,
            StatefulConnection<String, byte[]> connection, RedisClusterAsyncCommands<String, byte[]> redis, String prefix) {
        this.cluster = connection instanceof StatefulRedisClusterConnection;
        this.lettuce = lettuce;
        this.resources = lettuce.resources();
        this.client = client;
        this.connection = connection;
        this.redis = redis;
        this.prefix = prefix;
        this.receipts = new RedisReceipts(redis, prefix);
        this.deadLetters = new RedisDeadLetters(redis, prefix);
        this.taskCounters = new RedisTaskCounters(redis, prefix);
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
     * threads). The caller closes {@code loops}, and only after this store.
     */
    public static Stores connect(RedisPolicy policy, Duration commandTimeout, IoLoops loops) {
        requireNonNull(policy, "policy");
        Checks.positive(commandTimeout, "commandTimeout");
        LettuceResources lettuce = LettuceResources.create(loops);
        try {
            return connectOnce(policy, commandTimeout, lettuce).stores();
        } catch (RuntimeException e) {
            lettuce.close();
            throw e;
        }
    }

    /**
     * A store that connects in the background, so that the proxy can start while Redis is away:
     * until it has connected, every operation fails at once with {@link StoreUnavailableException}
     * and {@link RecordStore#isAvailable()} is false; it tries again with growing pauses
     * (100 ms doubling to 5 s, jittered) and, once connected, is the store {@link #connect} would
     * have returned ({@code maxmemory-policy} checked, Sentinel heartbeat, cluster nodes). This
     * call waits up to 5 s for the first attempt, so a Redis that is up is connected when it
     * returns, but only 500 ms after the attempt began to connect while it has made no TCP
     * connection (an address that drops SYNs holds it until the connect times out). Blocking for that long: call it at start-up, not on an event loop.
     *
     * @throws StoreUnavailableException when the first attempt fails for a reason that trying again
     *         will not mend: Redis refused the credentials, its TLS certificate did not verify, or
     *         the server speaks another protocol than the URI says
     */
    public static Stores start(RedisPolicy policy, Duration commandTimeout, IoLoops loops) {
        requireNonNull(policy, "policy");
        Checks.positive(commandTimeout, "commandTimeout");
        return ConnectingRedisStore.start(policy, commandTimeout, LettuceResources.create(loops)).stores();
    }

    /**
     * One attempt to connect on {@code lettuce}, which the store owns once connected (its
     * {@link #close()} shuts them down); on failure they are left as they were, for another
     * attempt or for the caller to close. Blocking.
     */
    static RedisStore connectOnce(RedisPolicy policy, Duration commandTimeout, LettuceResources lettuce) {
        ClientResources resources = lettuce.resources();
        TimeoutOptions timeouts = TimeoutOptions.enabled(commandTimeout);
        AutoCloseable made = null;
        try {
            RedisStore store;
            if (policy.mode().equals("cluster")) {
                RedisClusterClient client = RedisClusterClient.create(resources, clusterUris(policy.uri(), commandTimeout));
                made = client::shutdown;
                client.setOptions(ClusterClientOptions.builder().timeoutOptions(timeouts).sslOptions(sslOptions(policy, commandTimeout))
                        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                                .enablePeriodicRefresh(Duration.ofSeconds(30)).build())
                        // not REJECT_COMMANDS: a cluster's node connections open lazily and would reject the
                        // first commands; while a node is down, commands fail after commandTimeout instead
                        .build());
                StatefulRedisClusterConnection<String, byte[]> c = client.connect(CODEC);
                // node connections open lazily, and a connecting one would reject commands: open them all now;
                // a node that does not connect fails the attempt only when some slot has no other master
                ClusterCoverage.connectNodes(c, policy.redactedUri(), NODE_CONNECT_WAIT);
                store = new RedisStore(lettuce, client::shutdown, c, c.async(), policy.keyPrefix());
            } else if (policy.mode().equals("sentinel")) {
                // Master/replica over Sentinel, not a plain connection to the master Sentinel named at
                // connect time: that one moves only when the old master drops it, which Sentinel does
                // seconds after a failover (or never, if it cannot reach it), and every claim made there
                // meanwhile is lost. This one listens to the Sentinels' events and follows a switch within
                // about 5 s (Lettuce re-reads the topology 5 s after the first failover event).
                RedisClient client = RedisClient.create(resources);
                made = client::shutdown;
                client.setOptions(ClientOptions.builder().timeoutOptions(timeouts).sslOptions(sslOptions(policy, commandTimeout))
                        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
                StatefulRedisMasterReplicaConnection<String, byte[]> c = MasterReplica.connect(client, CODEC,
                        redisUri(policy.uri(), commandTimeout));
                c.setReadFrom(ReadFrom.UPSTREAM);  // reads too: a replica may lag behind a claim just made
                store = new RedisStore(lettuce, client::shutdown, c, c.async(), policy.keyPrefix());
                store.startHeartbeat();
            } else {
                RedisClient client = RedisClient.create(resources, redisUri(policy.uri(), commandTimeout));
                made = client::shutdown;
                client.setOptions(ClientOptions.builder().timeoutOptions(timeouts).sslOptions(sslOptions(policy, commandTimeout))
                        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
                StatefulRedisConnection<String, byte[]> c = client.connect(CODEC);
                store = new RedisStore(lettuce, client::shutdown, c, c.async(), policy.keyPrefix());
            }
            store.checkEvictionPolicy(policy, commandTimeout);
            return store;
        } catch (RedisException | IllegalArgumentException e) {  // the latter: a URI Lettuce will not take
            closeQuietly(made);  // the client of a failed attempt, not the resources it shares
            RedisException wrong = e instanceof RedisException r
                    ? ProtocolMismatch.classify(r, policy.mode(), policy.uri(), commandTimeout) : null;
            if (wrong instanceof ProtocolMismatch.WrongProtocolException) {
                throw new StoreUnavailableException("cannot connect to Redis at " + policy.redactedUri() + ": "
                        + wrong.getMessage(), wrong);
            }
            throw new StoreUnavailableException("cannot connect to Redis at " + policy.redactedUri() + ": " + describe(e), e);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            log.debug("closing a Redis client that did not connect: {}", e.toString());
        }
    }

    /**
     * Lettuce's defaults, or trust in {@code tls.caFile} alone; host names are verified either way.
     * The handshake may take the command timeout, not Lettuce's 10 s: a {@code rediss://} URI at a
     * plain port fails that way (Redis waits for the rest of what it reads as an inline command),
     * and is then told apart as a setting to fix within the start's wait ({@link ProtocolMismatch}).
     */
    private static SslOptions sslOptions(RedisPolicy policy, Duration handshakeTimeout) {
        SslOptions.Builder b = SslOptions.builder().handshakeTimeout(handshakeTimeout);
        if (policy.tlsCaFile() != null) {
            b.jdkSslProvider().trustManager(policy.tlsCaFile().toFile());
        }
        return b.build();
    }

    /**
     * The message and, when it says more, the root cause's: Lettuce's "Unable to connect to …" alone
     * hides a refused connection, a failed certificate check or a wrong password.
     */
    private static String describe(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = String.valueOf(e.getMessage());
        String rootMessage = root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
        return root == e || message.contains(rootMessage) ? message : message + " (" + rootMessage + ")";
    }

    /**
     * The URI with {@code timeout} as its own: how long a new connection's handshake ({@code HELLO},
     * {@code AUTH}, {@code PING}) may take, which is otherwise a minute, so an endpoint that accepts
     * and never answers holds an attempt that long (commands have their own timeout).
     */
    private static RedisURI redisUri(String uri, Duration timeout) {
        RedisURI u = RedisURI.create(uri);
        u.setTimeout(timeout);
        return u;
    }

    /** {@code redis://h1:p1,h2:p2} → one seed URI per host, keeping scheme and credentials. */
    private static List<RedisURI> clusterUris(String uri, Duration timeout) {
        int schemeEnd = uri.indexOf("://") + 3;
        int at = uri.lastIndexOf('@');
        int hostsStart = Math.max(schemeEnd, at + 1);
        int pathStart = uri.indexOf('/', hostsStart);
        String hosts = pathStart < 0 ? uri.substring(hostsStart) : uri.substring(hostsStart, pathStart);
        String rest = pathStart < 0 ? "" : uri.substring(pathStart);
        List<RedisURI> seeds = new ArrayList<>();
        for (String host : hosts.split(",")) {
            seeds.add(redisUri(uri.substring(0, hostsStart) + host + rest, timeout));
        }
        return seeds;
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

    String recordKey(RecordKey key) {
        return prefix + "rec:{" + key.id() + "}";
    }

    /** The owners a release fenced from writing the record back ({@link RecordScripts#EVICT_SETTLED}); the record's slot. */
    String fenceKey(RecordKey key) {
        return prefix + "fence:{" + key.id() + "}";
    }

    /** The keys of a script that writes the record and may write it back: the record, its fence. */
    private String[] fenced(RecordKey key) {
        return new String[] {recordKey(key), fenceKey(key)};
    }

    @Override
    public CompletionStage<ClaimResult> claim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
        if (!nativeClaims) {
            return call(() -> scriptClaim(key, fingerprint, owner, lease, ctx));
        }
        long leaseMs = Math.max(1, lease.toMillis());
        long kept = Math.max(leaseMs, ctx.retention().toMillis());
        return call(() -> {
            RedisFuture<byte[]> sent = redis.setGet(recordKey(key), RecordValue.inFlight(owner, ctx.callId(), fingerprint,
                    System.currentTimeMillis(), kept), SetArgs.Builder.nx().px(leaseMs + kept));
            // While disconnected, a command is refused before it is written, and its future has failed by now.
            boolean refusedUnsent = sent.isDone();
            return sent.handle((found, error) -> {
                if (error != null) {
                    if (!isSyntaxError(error)) {
                        return CompletableFuture.<ClaimResult>failedFuture(lostOrRefused(error, refusedUnsent, leaseMs + kept));
                    }
                    // SET ... NX GET needs Redis 7.0; before that, every claim is the script
                    nativeClaims = false;
                    log.info("Redis does not take SET ... NX GET (before 7.0): every claim runs a script");
                    return scriptClaim(key, fingerprint, owner, lease, ctx);
                }
                if (found == null) {
                    return withReceipt(ClaimResult.Claimed.FRESH, ctx, cluster);
                }
                ClaimResult known = RecordValue.existing(found, fingerprint);
                // in flight: whether its lease has lapsed is the server clock's to say, in the script
                return known != null ? CompletableFuture.completedFuture(known) : scriptClaim(key, fingerprint, owner, lease, ctx);
            }).thenCompose(stage -> stage);
        });
    }

    /**
     * The failure of a native claim: a command refused before it was sent, or an error reply
     * (Redis refused it whole), wrote nothing; anything else (a timeout, the connection lost in
     * flight) may have come after Redis wrote it, and what {@code SET ... NX} writes is always a
     * fresh record under the caller's owner token, so the caller may undo it
     * ({@link #releaseLostClaim}). A claim run as the script is never reported so: it may have
     * been a takeover, which must stay.
     */
    private static Throwable lostOrRefused(Throwable error, boolean refusedUnsent, long recordLifetimeMillis) {
        Throwable cause = Failures.cause(error);
        if (refusedUnsent || cause instanceof RedisCommandExecutionException || isRefusedWhileDisconnected(cause)) {
            return error;
        }
        return new ClaimAnswerLostException("Redis: the claim's answer was lost: " + cause.getMessage(), cause,
                Duration.ofMillis(recordLifetimeMillis));
    }

    /**
     * Lettuce's refusal of a command while disconnected ({@code REJECT_COMMANDS}), which reaches a
     * caller on another thread only after the call returned: the command was never written. (Were
     * the wording to change, such a claim would only be released for nothing: the release is fenced.)
     */
    private static boolean isRefusedWhileDisconnected(Throwable cause) {
        return cause instanceof RedisException && String.valueOf(cause.getMessage()).startsWith("Currently not connected");
    }

    /**
     * Releases a native claim whose answer was lost ({@link ClaimAnswerLostException}), should it
     * have been written: at once, and while Redis does not answer, again after 100 ms, doubling up
     * to 2 s, until Redis answers or the record would have expired. At most
     * {@value #MAX_LOST_CLAIMS} such releases wait at once; past that a lost claim keeps its key
     * until its lease lapses, as before this existed (logged once per overflow).
     */
    @Override
    public void releaseLostClaim(RecordKey key, String owner, ClaimAnswerLostException lost) {
        if (closed) {
            return;
        }
        if (lostClaims.incrementAndGet() > MAX_LOST_CLAIMS) {
            lostClaimDone();
            if (lostClaimsOverflowLogged.compareAndSet(false, true)) {
                log.warn("more than {} claims with lost answers wait for Redis: their keys stay held until their leases lapse",
                        MAX_LOST_CLAIMS);
            }
            return;
        }
        releaseLost(key, owner, System.nanoTime() + lost.recordLifetime().toNanos(), LOST_CLAIM_FIRST_RETRY_MILLIS);
    }

    private void releaseLost(RecordKey key, String owner, long deadlineNanos, long retryMillis) {
        if (closed || System.nanoTime() - deadlineNanos > 0) {
            lostClaimDone();  // expired by now: nothing left to release
            return;
        }
        release(key, owner).whenComplete((released, error) -> {
            if (error == null) {
                lostClaimDone();
                if (released) {
                    log.info("[owner={}] released its claim, whose answer Redis had lost: the key is free again", owner);
                }
                return;
            }
            try {
                resources.eventExecutorGroup().schedule(
                        () -> releaseLost(key, owner, deadlineNanos, Math.min(2 * retryMillis, LOST_CLAIM_MAX_RETRY_MILLIS)),
                        retryMillis, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                lostClaimDone();  // closing
            }
        });
    }

    /** One release of a lost claim no longer waits; when none does, a later overflow is logged again. */
    private void lostClaimDone() {
        if (lostClaims.decrementAndGet() == 0) {
            lostClaimsOverflowLogged.set(false);
        }
    }

    /** For tests: every claim runs the script, as against a Redis before 7.0. */
    void scriptClaimsOnly() {
        nativeClaims = false;
    }

    private static boolean isSyntaxError(Throwable error) {
        Throwable cause = Failures.cause(error);
        return cause instanceof RedisCommandExecutionException && String.valueOf(cause.getMessage()).contains("syntax error");
    }

    /**
     * A claim whose receipt was not written with it (a native claim; any claim in a cluster, where
     * the receipt's keys live in other slots): when it claimed, the receipt is a second command. It
     * is awaited when {@code await}; otherwise it is only sent (outside a cluster one connection
     * keeps the order, so every later read or write of it comes after). A failure there is logged,
     * not the claim's (it only loses the PROCESSING state).
     */
    private CompletionStage<ClaimResult> withReceipt(ClaimResult result, ClaimContext ctx, boolean await) {
        ReceiptPut receipt = ctx.receipt();
        if (receipt == null || !(result instanceof ClaimResult.Claimed)) {
            return CompletableFuture.completedFuture(result);
        }
        CompletionStage<ClaimResult> written = receipts.put(receipt.receipt(), receipt.ttl()).handle((x, err) -> {
            if (err != null) {
                log.warn("[call={}] could not write the receipt: {}", ctx.callId(), err.toString());
            }
            return result;
        });
        return await ? written : CompletableFuture.completedFuture(result);
    }

    /** The whole claim as one script ({@link RecordScripts#CLAIM}), with its receipt in it outside a cluster. */
    private CompletionStage<ClaimResult> scriptClaim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
        ReceiptPut receipt = ctx.receipt();
        byte[][] args = {bytes(RecordValue.line(fingerprint)), bytes(RecordValue.line(owner)), bytes(RecordValue.line(ctx.callId())),
            millis(lease), bytes(Long.toString(ctx.retention().toMillis()))};
        if (receipt != null && !cluster) {  // one script writes the claim and its receipt
            return RecordScripts.CLAIM.<List<Object>>run(redis, receipts.scriptKeys(recordKey(key), receipt.receipt()),
                    concat(args, receipts.scriptArgs(receipt.receipt(), receipt.ttl()))).thenApply(RecordValue::claimResult);
        }
        return RecordScripts.CLAIM.<List<Object>>run(redis, recordKey(key), args).thenApply(RecordValue::claimResult)
                .thenCompose(result -> withReceipt(result, ctx, true));
    }

    @Override
    public CompletionStage<Boolean> renew(RecordKey key, OwnedClaim claim, Duration lease) {
        long leaseMs = Math.max(1, lease.toMillis());
        long kept = Math.max(leaseMs, claim.retention().toMillis());
        return call(() -> RecordScripts.RENEW.<Long>run(redis, fenced(key), RecordValue.ownedPrefix(claim.owner()),
                        millis(lease), RecordValue.inFlight(claim.owner(), claim.callId(), claim.fingerprint(),
                                claim.createdAt().toEpochMilli(), kept), bytes(Long.toString(leaseMs + kept)))
                .thenApply(n -> written(n, claim, "its claim")));
    }

    @Override
    public CompletionStage<Boolean> complete(RecordKey key, OwnedClaim claim, StoredResponse response, int attempts, Duration ttl,
            ReceiptPut receipt) {
        return end(key, claim, "C", ttl, RecordValue.endTail(attempts, response.status(), StoreCodec.encodeResponse(response)),
                receipt);
    }

    /**
     * A renewal's or an end's answer: 1 done, 2 done into an absent key (logged: Redis lost the
     * record of a call in flight), 0 refused.
     */
    private static boolean written(long n, OwnedClaim claim, String what) {
        if (n == 2L) {
            log.warn("[call={}] its idempotency record was gone from Redis (restarted empty, flushed or evicted?): {} was written back",
                    claim.callId(), what);
        }
        return n != 0L;
    }

    /**
     * Ends the record ({@link RecordScripts#END}), or writes it ended when it is absent, and, when it
     * did and {@code receipt} is not null, writes the receipt: in the same script outside a cluster;
     * in a cluster right after, and if that fails, so does this (the record is ended by then, so a
     * retry answers false and the caller writes the receipt on its own).
     */
    private CompletionStage<Boolean> end(RecordKey key, OwnedClaim claim, String state, Duration ttl, byte[] tail,
            ReceiptPut receipt) {
        return call(() -> {
            byte[][] args = {RecordValue.ownedPrefix(claim.owner()), bytes(state), millis(ttl), tail,
                    bytes(Long.toString(System.currentTimeMillis())),
                    RecordValue.identity(claim.callId(), claim.fingerprint(), claim.createdAt().toEpochMilli())};
            String what = state.equals("C") ? "its outcome" : "its outcome (not retained)";
            if (receipt == null) {
                return RecordScripts.END.<Long>run(redis, fenced(key), args).thenApply(n -> written(n, claim, what));
            }
            if (!cluster) {
                String[] withReceipt = receipts.scriptKeys(recordKey(key), receipt.receipt());  // record, receipt[, index]
                String[] keys = new String[withReceipt.length + 1];
                keys[0] = withReceipt[0];
                keys[1] = fenceKey(key);
                System.arraycopy(withReceipt, 1, keys, 2, withReceipt.length - 1);
                return RecordScripts.END.<Long>run(redis, keys,
                        concat(args, receipts.scriptArgs(receipt.receipt(), receipt.ttl()))).thenApply(n -> written(n, claim, what));
            }
            return RecordScripts.END.<Long>run(redis, fenced(key), args).thenCompose(n -> written(n, claim, what)
                    ? receipts.put(receipt.receipt(), receipt.ttl()).thenApply(x -> true)
                    : CompletableFuture.completedFuture(false));
        });
    }

    private static byte[][] concat(byte[][] a, byte[][] b) {
        byte[][] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    @Override
    public CompletionStage<Boolean> markNotRetained(RecordKey key, OwnedClaim claim, int status, int attempts, Duration ttl) {
        return end(key, claim, "N", ttl, RecordValue.endTail(attempts, status, null), null);
    }

    @Override
    public CompletionStage<Boolean> release(RecordKey key, String owner) {
        return call(() -> RecordScripts.RELEASE.<Long>run(redis, recordKey(key), RecordValue.ownedPrefix(owner)).thenApply(n -> n == 1L));
    }

    @Override
    public CompletionStage<Boolean> evict(RecordKey key) {
        return call(() -> redis.del(recordKey(key)).thenApply(n -> n > 0));
    }

    /**
     * Deletes the record and fences {@code settledOwner} ({@link RecordScripts#EVICT_SETTLED}) for
     * {@link #EVICTION_FENCE}, so that an end or renewal of that call still on its way, or still
     * being retried, does not write the record back and undo the operator's release.
     */
    @Override
    public CompletionStage<Boolean> evict(RecordKey key, String settledOwner) {
        return call(() -> RecordScripts.EVICT_SETTLED.<Long>run(redis, fenced(key), millis(EVICTION_FENCE),
                bytes(settledOwner)).thenApply(n -> n == 1L));
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> get(RecordKey key) {
        return call(() -> RecordScripts.READ.<List<Object>>run(redis, recordKey(key))
                .thenApply(reply -> Optional.ofNullable(RecordValue.record(reply))));
    }

    @Override
    public CompletionStage<Void> putReceipt(Receipt receipt, Duration ttl) {
        return call(() -> receipts.put(receipt, ttl));
    }

    @Override
    public CompletionStage<Optional<Receipt>> receipt(String callId) {
        return call(() -> receipts.get(callId));
    }

    @Override
    public CompletionStage<List<Receipt>> receiptsByBizId(String bizId, int limit) {
        Checks.requireArgument(limit >= 1, "limit " + limit + " (expected: >= 1)");
        return call(() -> receipts.byBizId(bizId, limit));
    }

    @Override
    public CompletionStage<Void> addDeadLetter(DeadLetter entry) {
        return call(() -> deadLetters.add(entry));
    }

    @Override
    public CompletionStage<DeadLetterPage> deadLetters(String cursor, int limit) {
        Checks.requireArgument(limit >= 1, "limit " + limit + " (expected: >= 1)");
        return call(() -> deadLetters.page(cursor, limit));
    }

    @Override
    public CompletionStage<Optional<DeadLetter>> deadLetter(String id) {
        return call(() -> deadLetters.get(id));
    }

    @Override
    public CompletionStage<Boolean> deleteDeadLetter(String id) {
        return call(() -> deadLetters.delete(id));
    }

    @Override
    public CompletionStage<Long> deadLetterCount() {
        return call(deadLetters::count);
    }

    @Override
    public CompletionStage<Long> chargeTaskRetry(String windowKey, int maxRetries, Duration ttl) {
        return call(() -> taskCounters.charge(windowKey, maxRetries, ttl));
    }

    @Override
    public CompletionStage<Long> taskRetriesUsed(String windowKey) {
        return call(() -> taskCounters.used(windowKey));
    }

    /** This backend as its four stores. */
    Stores stores() {
        return new Stores(this, this, this, this);
    }

    @Override
    public boolean isAvailable() {
        Boolean pingOk = lastPingOk;
        return !closed && (pingOk == null ? connection.isOpen() : pingOk);
    }

    /** Closes the connection, the client and its threads. Blocking. */
    @Override
    public void close() {
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
    private <T> CompletionStage<T> call(Supplier<CompletionStage<T>> op) {
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

    private static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }

    private static byte[] millis(Duration d) {
        return Long.toString(Math.max(1, d.toMillis())).getBytes(UTF_8);
    }
}
