package dev.idemproxy.core.store.redis;

import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import dev.idemproxy.core.store.StoreUnavailableException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.masterreplica.MasterReplica;
import io.lettuce.core.masterreplica.StatefulRedisMasterReplicaConnection;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the Lettuce client and connection a {@link RedisPolicy} names: standalone
 * ({@code redis://}, {@code rediss://}), sentinel ({@code redis-sentinel://}, as a master/replica
 * connection that follows Sentinel's failovers) or cluster (every node connected up front). TLS
 * ({@code rediss://}) verifies the certificate and host name against {@code tlsCaFile} when set,
 * else the JVM's trust store. Commands time out after the command timeout; standalone and
 * sentinel commands fail at once while disconnected, cluster commands wait for the reconnect up to
 * the command timeout. Stateless.
 */
final class RedisClients {
    /** How long a cluster's node connections may take when it connects: at most Lettuce's connect timeout (10 s), and a little. */
    private static final Duration NODE_CONNECT_WAIT = Duration.ofSeconds(11);
    private static final RedisCodec<String, byte[]> CODEC = KeyValueCodec.INSTANCE;
    private static final Logger log = LoggerFactory.getLogger(RedisStore.class);

    private RedisClients() {
    }

    /** A connected client: what closes it, its connection and the connection's commands. */
    record Connected(AutoCloseable client, StatefulConnection<String, byte[]> connection,
            RedisClusterAsyncCommands<String, byte[]> commands) {
        /** Cluster mode: a record and its receipt hash to different slots, so no script may write both. */
        boolean cluster() {
            return connection instanceof StatefulRedisClusterConnection;
        }

        /** Sentinel mode: the connection reports itself open even while its master is down. */
        boolean masterReplica() {
            return connection instanceof StatefulRedisMasterReplicaConnection;
        }
    }

    /**
     * One attempt to connect on {@code resources} (shared: not closed on failure, nor by the
     * client). Blocking.
     *
     * @throws StoreUnavailableException when it fails; for a server that speaks another protocol
     *         than the URI says, with a {@link ProtocolMismatch.WrongProtocolException} as its cause
     */
    static Connected connect(RedisPolicy policy, Duration commandTimeout, ClientResources resources) {
        TimeoutOptions timeouts = TimeoutOptions.enabled(commandTimeout);
        AutoCloseable made = null;
        try {
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
                return new Connected(client::shutdown, c, c.async());
            }
            if (policy.mode().equals("sentinel")) {
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
                return new Connected(client::shutdown, c, c.async());
            }
            RedisClient client = RedisClient.create(resources, redisUri(policy.uri(), commandTimeout));
            made = client::shutdown;
            client.setOptions(ClientOptions.builder().timeoutOptions(timeouts).sslOptions(sslOptions(policy, commandTimeout))
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
            StatefulRedisConnection<String, byte[]> c = client.connect(CODEC);
            return new Connected(client::shutdown, c, c.async());
        } catch (RedisException | IllegalArgumentException e) {  // the latter: a URI Lettuce will not take
            closeQuietly(made);  // the client of a failed attempt, not the resources it shares
            throw failed(policy, commandTimeout, e);
        }
    }

    /** Why an attempt failed, as the store reports it. */
    static StoreUnavailableException failed(RedisPolicy policy, Duration commandTimeout, RuntimeException e) {
        RedisException wrong = e instanceof RedisException r
                ? ProtocolMismatch.classify(r, policy.mode(), policy.uri(), commandTimeout) : null;
        if (wrong instanceof ProtocolMismatch.WrongProtocolException) {
            return new StoreUnavailableException("cannot connect to Redis at " + policy.redactedUri() + ": "
                    + wrong.getMessage(), wrong);
        }
        return new StoreUnavailableException("cannot connect to Redis at " + policy.redactedUri() + ": " + describe(e), e);
    }

    static void closeQuietly(AutoCloseable c) {
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
}
