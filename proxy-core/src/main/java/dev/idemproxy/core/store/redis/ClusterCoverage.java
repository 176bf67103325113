package dev.idemproxy.core.store.redis;

import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a cluster connection can serve every slot, decided when it connects: Lettuce opens node
 * connections lazily, and one still connecting would reject the first commands, so every node of
 * the topology is connected to at once (in parallel). A node that does not connect matters only
 * when it is the master of some slot: a failed replica, or a node the cluster has marked failed
 * and whose slots went to another, stays listed in {@code CLUSTER NODES} until an operator
 * forgets it, and a Redis Cluster client (Lettuce, redis-cli) works on without it. So the
 * connection is usable when every one of the 16,384 slots has a master that connected (the
 * others are logged once, at WARN), and otherwise fails with the slots and nodes at fault, so that
 * the connector tries again (its log is throttled). Stateless.
 */
final class ClusterCoverage {
    private static final Logger log = LoggerFactory.getLogger(RedisStore.class);

    private ClusterCoverage() {
    }

    /**
     * Connects to every node of {@code c}'s topology and checks that every slot is served. Blocking
     * (for at most {@code wait}, beyond which a node still connecting counts as not connected): the
     * connector's thread only.
     *
     * @throws RedisException naming the slots no master that answers serves, and why
     */
    static void connectNodes(StatefulRedisClusterConnection<?, ?> c, String redactedUri, Duration wait) {
        Partitions partitions = c.getPartitions();
        Map<RedisClusterNode, CompletableFuture<?>> connecting = new LinkedHashMap<>();
        for (RedisClusterNode node : partitions) {
            CompletableFuture<?> f;
            try {
                f = c.getConnectionAsync(node.getNodeId());
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            connecting.put(node, f);
        }
        try {
            CompletableFuture.allOf(connecting.values().toArray(CompletableFuture[]::new)).handle((x, e) -> null)
                    .get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // the ones not done are reported below
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisException("interrupted while connecting to the cluster's nodes", e);
        }
        Map<RedisClusterNode, String> failed = new LinkedHashMap<>();
        connecting.forEach((node, f) -> {
            String why = failure(f, wait);
            if (why != null) {
                failed.put(node, why);
            }
        });
        List<String> unserved = unservedSlots(partitions, failed);
        if (!unserved.isEmpty()) {
            throw new RedisException("the cluster cannot serve every slot: " + String.join("; ", unserved));
        }
        failed.forEach((node, why) -> log.warn("Redis cluster at {}: {} {} ({}, flags {}) did not connect ({}); going on without it:"
                + " every slot has a master that answers", redactedUri, role(node), address(node), node.getNodeId(),
                flags(node), why));
    }

    /** Null when {@code f} connected; else why not. */
    private static String failure(CompletableFuture<?> f, Duration wait) {
        if (!f.isDone()) {  // left to Lettuce, which owns it (a cancel could stay in its connection cache)
            return "still connecting after " + wait.toSeconds() + " s";
        }
        try {
            f.getNow(null);
            return null;
        } catch (RuntimeException e) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            return String.valueOf(root.getMessage());
        }
    }

    /**
     * The slots without a master that connected, as runs of consecutive slots with the same cause:
     * {@code slots 5461-10922 at master 127.0.0.1:7001 (<id>) which did not connect (<why>)}, or
     * {@code slots 0-99 at no node}.
     */
    static List<String> unservedSlots(Partitions partitions, Map<RedisClusterNode, String> failed) {
        List<String> runs = new ArrayList<>();
        String current = null;
        int start = 0;
        for (int slot = 0; slot <= SlotHash.SLOT_COUNT; slot++) {
            String problem = null;
            if (slot < SlotHash.SLOT_COUNT) {
                RedisClusterNode master = partitions.getMasterBySlot(slot);
                if (master == null) {
                    problem = "at no node";
                } else if (failed.containsKey(master)) {
                    problem = "at master " + address(master) + " (" + master.getNodeId() + ") which did not connect ("
                            + failed.get(master) + ")";
                }
            }
            if (problem == null ? current != null : !problem.equals(current)) {
                if (current != null) {
                    runs.add("slots " + (start == slot - 1 ? Integer.toString(start) : start + "-" + (slot - 1)) + " " + current);
                }
                current = problem;
                start = slot;
            }
        }
        return runs;
    }

    private static String role(RedisClusterNode node) {
        if (node.is(RedisClusterNode.NodeFlag.REPLICA) || node.is(RedisClusterNode.NodeFlag.SLAVE)) {
            return "replica";
        }
        return node.hasNoSlots() ? "master without slots" : "master";
    }

    private static String address(RedisClusterNode node) {
        return node.getUri() == null ? "?" : node.getUri().getHost() + ":" + node.getUri().getPort();
    }

    private static List<String> flags(RedisClusterNode node) {
        return node.getFlags().stream().map(f -> f.name().toLowerCase(Locale.ROOT)).sorted().toList();
    }
}
