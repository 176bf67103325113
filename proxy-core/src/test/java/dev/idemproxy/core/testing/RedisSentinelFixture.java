package dev.idemproxy.core.testing;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A private Redis Sentinel set-up of real child processes on free loopback ports: one master, one
 * replica of it, and two {@code redis-server --sentinel} processes monitoring it as
 * {@value #MASTER_NAME} with quorum 1, each from a generated configuration file in its own
 * temporary directory. Ready when the replica's link is up and every Sentinel knows the master and
 * the replica. Automatic failover is slowed down ({@code down-after-milliseconds} 10 s) so a busy
 * machine does not trigger one by accident; {@link #failover()} forces one. Not thread-safe: drive
 * it from the test thread.
 */
public final class RedisSentinelFixture implements AutoCloseable {
    public static final String MASTER_NAME = "mymaster";
    private static final long READY_TIMEOUT_MS = 30_000;

    private final List<RedisServerFixture> servers = new ArrayList<>();
    private final List<RedisServerFixture> sentinels = new ArrayList<>();

    private RedisSentinelFixture() {
    }

    /** Starts the master, its replica and two Sentinels, and waits until they all see each other. */
    public static RedisSentinelFixture start() {
        return start(List.of());
    }

    /**
     * Like {@link #start()}, with extra {@code redis-server} arguments for the first master only
     * (e.g. renaming {@code REPLICAOF} and {@code SLAVEOF} away, so Sentinel can never demote it:
     * a stale master still reachable by clients, as in a partition).
     */
    public static RedisSentinelFixture start(List<String> masterArgs) {
        RedisSentinelFixture f = new RedisSentinelFixture();
        try {
            int[] ports = FreePorts.pick(4);
            RedisServerFixture master = RedisServerFixture.on(ports[0], masterArgs);
            f.servers.add(master);
            master.start();
            RedisServerFixture replica = RedisServerFixture.on(ports[1],
                    List.of("--replicaof", "127.0.0.1", Integer.toString(ports[0])));
            f.servers.add(replica);
            replica.start();
            // Sentinel learns of replicas from the master's INFO, every 10 s after its first look:
            // let the replica be linked before that first look
            await("the replica to link to the master", () -> "up".equals(replica.info("replication", "master_link_status")));
            for (int i = 2; i < 4; i++) {
                RedisServerFixture sentinel = RedisServerFixture.sentinelOn(ports[i], List.of(
                        "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + ports[0] + " 1",
                        "sentinel down-after-milliseconds " + MASTER_NAME + " 10000",
                        "sentinel failover-timeout " + MASTER_NAME + " 20000",
                        "sentinel parallel-syncs " + MASTER_NAME + " 1"));
                f.sentinels.add(sentinel);
                sentinel.start();
            }
            f.awaitTopology(ports[0], ports[1]);
            return f;
        } catch (RuntimeException e) {
            f.close();
            throw e;
        }
    }

    /** {@code redis-sentinel://127.0.0.1:S1,127.0.0.1:S2/0#mymaster}: every Sentinel, database 0. */
    public String uri() {
        StringBuilder sb = new StringBuilder("redis-sentinel://");
        for (int i = 0; i < sentinels.size(); i++) {
            sb.append(i == 0 ? "" : ",").append("127.0.0.1:").append(sentinels.get(i).port());
        }
        return sb.append("/0#").append(MASTER_NAME).toString();
    }

    public List<RedisServerFixture> sentinels() {
        return List.copyOf(sentinels);
    }

    /** The data node the first Sentinel names as master now. */
    public RedisServerFixture master() {
        int port = masterPort();
        return servers.stream().filter(s -> s.port() == port).findFirst()
                .orElseThrow(() -> new IllegalStateException("Sentinel names an unknown master port " + port));
    }

    /** The data node that is not {@link #master()}. */
    public RedisServerFixture replica() {
        int port = masterPort();
        return servers.stream().filter(s -> s.port() != port).findFirst().orElseThrow();
    }

    /**
     * Waits until the replica has every write the master has acknowledged so far (its replication
     * offset caught up): what {@code WAIT 1} would have guaranteed for those writes.
     */
    public void awaitReplicated() {
        RedisServerFixture master = master();
        RedisServerFixture replica = replica();
        await("the replica to catch up with the master", () -> {
            long target = Long.parseLong(master.info("replication", "master_repl_offset"));
            String link = replica.info("replication", "master_link_status");
            String offset = replica.info("replication", "slave_repl_offset");
            return "up".equals(link) && offset != null && Long.parseLong(offset) >= target;
        });
    }

    /**
     * Forces a failover ({@code SENTINEL FAILOVER}) and waits until Sentinel has switched: every
     * Sentinel names the old replica as master and that node reports {@code role:master}. The old
     * master is not yet reconfigured (Sentinel does that some seconds later, when it next checks
     * the node): see {@link #awaitOldMasterDemoted}.
     */
    public void failover() {
        RedisServerFixture newMaster = replica();
        try {
            String reply = sentinels.get(0).command("SENTINEL", "FAILOVER", MASTER_NAME);
            if (!"+OK".equals(reply)) {
                throw new IllegalStateException("SENTINEL FAILOVER: " + reply);
            }
        } catch (IOException e) {
            throw new IllegalStateException("SENTINEL FAILOVER", e);
        }
        await("Sentinel to switch to port " + newMaster.port(), () -> {
            for (RedisServerFixture s : sentinels) {
                if (!("127.0.0.1\n" + newMaster.port()).equals(
                        s.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME))) {
                    return false;
                }
            }
            return "master".equals(newMaster.info("replication", "role"));
        });
    }

    /** Waits until {@code oldMaster} has been turned into a replica of the current master, its link up. */
    public void awaitOldMasterDemoted(RedisServerFixture oldMaster) {
        RedisServerFixture master = master();
        await("port " + oldMaster.port() + " to replicate from " + master.port(), () ->
                "slave".equals(oldMaster.info("replication", "role"))
                        && Integer.toString(master.port()).equals(oldMaster.info("replication", "master_port"))
                        && "up".equals(oldMaster.info("replication", "master_link_status")));
    }

    private int masterPort() {
        try {
            String addr = sentinels.get(0).command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
            return Integer.parseInt(addr.split("\n")[1]);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot ask Sentinel for the master", e);
        }
    }

    private void awaitTopology(int masterPort, int replicaPort) {
        RedisServerFixture replica = servers.get(1);
        await("the replica to sync and every Sentinel to know both nodes", () -> {
            if (!"up".equals(replica.info("replication", "master_link_status"))) {
                return false;
            }
            for (RedisServerFixture s : sentinels) {
                String master = s.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
                String replicas = s.command("SENTINEL", "REPLICAS", MASTER_NAME);
                if (!("127.0.0.1\n" + masterPort).equals(master) || replicas == null
                        || !replicas.contains("\n" + replicaPort + "\n") || !replicas.contains("master-link-status\nok")) {
                    return false;
                }
            }
            return true;
        });
    }

    private interface Condition {
        boolean holds() throws IOException;
    }

    private static void await(String what, Condition condition) {
        Await.until(what, java.time.Duration.ofMillis(READY_TIMEOUT_MS), () -> {
            try {
                return condition.holds();
            } catch (IOException | RuntimeException e) {
                return false;  // a node restarting its role; ask again
            }
        });
    }

    /** Stops the Sentinels first (so none fails over while the data nodes go), then the data nodes. */
    @Override
    public void close() {
        for (RedisServerFixture s : sentinels) {
            s.close();
        }
        for (RedisServerFixture s : servers) {
            s.close();
        }
    }
}
