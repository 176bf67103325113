package dev.idemproxy.core.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A three-master Redis Cluster of real {@code redis-server} child processes on loopback (no
 * replicas unless {@link #addReplica()} adds one), created with {@code redis-cli --cluster create}.
 * Ready when every node reports {@code cluster_state:ok}. Not thread-safe: drive it from the test thread.
 */
public final class RedisClusterFixture implements AutoCloseable {
    private static final long READY_TIMEOUT_MS = 20_000;

    private final List<RedisServerFixture> nodes = new ArrayList<>();
    /** Nodes that serve no slots ({@link #addReplica()}): not in {@link #uri()}, not restarted. */
    private final List<RedisServerFixture> replicas = new ArrayList<>();

    private RedisClusterFixture() {
    }

    /** Starts three masters, joins them into one cluster and waits until it is ok. */
    public static RedisClusterFixture start() {
        RedisClusterFixture c = new RedisClusterFixture();
        try {
            int[] ports = FreePorts.pick(6);  // three client ports, three cluster-bus ports
            for (int i = 0; i < 3; i++) {
                RedisServerFixture node = RedisServerFixture.on(ports[i], List.of("--cluster-enabled", "yes",
                        "--cluster-config-file", "nodes-" + ports[i] + ".conf", "--cluster-node-timeout", "3000",
                        "--cluster-port", Integer.toString(ports[i + 3])));
                c.nodes.add(node);
                node.start();
            }
            c.create();
            c.awaitOk();
            return c;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** {@code redis://127.0.0.1:P1,127.0.0.1:P2,...}: every node as a seed. */
    public String uri() {
        StringBuilder sb = new StringBuilder("redis://");
        for (int i = 0; i < nodes.size(); i++) {
            sb.append(i == 0 ? "" : ",").append("127.0.0.1:").append(nodes.get(i).port());
        }
        return sb.toString();
    }

    public List<RedisServerFixture> nodes() {
        return List.copyOf(nodes);
    }

    /**
     * Starts a fourth node, joins it to the cluster as a replica of the first master and waits
     * until every master lists it as that. It is no seed ({@link #uri()} names the masters only), so the
     * cluster's topology is the only place a client learns of it.
     */
    public RedisServerFixture addReplica() {
        int[] ports = FreePorts.pick(2);
        RedisServerFixture replica = RedisServerFixture.on(ports[0], List.of("--cluster-enabled", "yes",
                "--cluster-config-file", "nodes-" + ports[0] + ".conf", "--cluster-node-timeout", "3000",
                "--cluster-port", Integer.toString(ports[1])));
        replicas.add(replica);
        replica.start();
        try {
            String masterId = nodes.get(0).command("CLUSTER", "MYID").trim();
            nodes.get(0).command("CLUSTER", "MEET", "127.0.0.1", Integer.toString(ports[0]), Integer.toString(ports[1]));
            awaitKnown(replica, masterId);
            replica.command("CLUSTER", "REPLICATE", masterId);
            String replicaId = replica.command("CLUSTER", "MYID").trim();
            for (RedisServerFixture n : nodes) {
                awaitNodeLine(n, replicaId, " slave " + masterId + " ");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return replica;
    }

    /** Waits until {@code node}'s {@code CLUSTER NODES} has a line for {@code nodeId} that contains {@code text}. */
    public static void awaitNodeLine(RedisServerFixture node, String nodeId, String text) {
        Await.until("node " + nodeId + " listed with '" + text + "'", java.time.Duration.ofMillis(READY_TIMEOUT_MS), () -> {
            try {
                for (String line : node.command("CLUSTER", "NODES").split("\n")) {
                    if (line.startsWith(nodeId) && line.contains(text)) {
                        return true;
                    }
                }
            } catch (IOException e) {
                // not answering yet
            }
            return false;
        });
    }

    private static void awaitKnown(RedisServerFixture node, String nodeId) {
        awaitNodeLine(node, nodeId, "connected");
    }

    /** Stops every node; their cluster configuration stays in their directories for {@link #restart()}. */
    public void stop() {
        for (RedisServerFixture n : nodes) {
            n.stop();
        }
    }

    /** Starts every node again on its port (empty: no persistence) and waits until the cluster is ok. */
    public void restart() {
        for (RedisServerFixture n : nodes) {
            n.start();
        }
        awaitOk();
    }

    private void create() {
        List<String> cmd = new ArrayList<>(List.of(RedisServerFixture.binary("redis-cli"), "--cluster", "create"));
        for (RedisServerFixture n : nodes) {
            cmd.add("127.0.0.1:" + n.port());
        }
        cmd.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("redis-cli --cluster create failed: " + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Waits until every node (replicas aside) reports {@code cluster_state:ok}. */
    public void awaitOk() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MS);
        Await.until("every node's cluster_state:ok", java.time.Duration.ofMillis(READY_TIMEOUT_MS), () -> {
            for (RedisServerFixture n : nodes) {
                try {
                    String info = n.command("CLUSTER", "INFO");
                    if (info == null || !info.contains("cluster_state:ok")) {
                        return false;
                    }
                } catch (IOException e) {
                    return false;
                }
            }
            return true;
        });
    }

    @Override
    public void close() {
        for (RedisServerFixture n : replicas) {
            n.close();
        }
        for (RedisServerFixture n : nodes) {
            n.close();
        }
    }
}
