package dev.idemproxy.core.sim;

import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.retry.TaskPolicy;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteTable;
import dev.idemproxy.core.store.StorePolicy;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.memory.MemoryStore;
import dev.idemproxy.core.util.Mistakes;
import io.netty.channel.ChannelId;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * One run of the simulation, everything drawn from its seed: the routes, the store
 * ({@link StorePlan}: one or two proxies sharing one memory store, each through its own faulty
 * connection, or one proxy process with the embedded store in it, {@link EmbeddedRun}), the
 * simulated upstream, the agents and their intents, and whether a proxy crashes. The
 * {@link Scheduler} runs it; the {@link Invariants} judge it. Not thread-safe: one simulation thread.
 */
final class World {
    /** A world event due at a time: a delayed answer, a connect, a client's timeout. */
    private record Timed(long at, long seq, String what, Runnable run) {}

    final long seed;
    final SplittableRandom random;
    final SimTime time = new SimTime();
    final Trace trace;
    final Ledger ledger = new Ledger();
    final Claims claims = new Claims();
    final TrackingAllocator alloc = new TrackingAllocator();
    final RouteTable routes;
    final StorePlan plan;
    /** The store's own draws (write faults), apart from the schedule's stream. */
    final SplittableRandom side;
    /** The store every proxy uses now (the embedded store's: the one opened last). */
    Stores shared;
    /** The run on the embedded store, or null (the memory store). */
    final EmbeddedRun embedded;
    final WriteLedger writes = new WriteLedger();
    final TaskPolicy tasks;
    final StorePolicy.OnUnavailable onUnavailable;
    final SimUpstream upstream;
    final List<SimProxy> proxies = new ArrayList<>(2);
    final List<SimClient> clients = new ArrayList<>();
    final List<SimChannel> channels = new ArrayList<>();
    final List<String> violations = new ArrayList<>();
    private final PriorityQueue<Timed> timed = new PriorityQueue<>(
            (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
    private long seq;
    private int channelIds;
    private int rpcIds;
    final StoreFaults faults;

    private final ProxyMetrics metrics;
    private final Mistakes mistakes;

    /** @param storeDirectory where an embedded store takes its lock file (its log is in memory) */
    World(long seed, boolean verbose, Mistakes mistakes, ProxyMetrics metrics, Path storeDirectory) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        this.plan = StorePlan.draw(seed);
        this.side = new SplittableRandom(plan.sideSeed());
        this.metrics = metrics;
        this.mistakes = mistakes;
        this.trace = new Trace(time, verbose);
        this.routes = SimRoutes.draw(random);
        this.tasks = new TaskPolicy("X-Task-Id", random.nextInt(4), Duration.ofHours(1));
        this.onUnavailable = random.nextInt(6) == 0 ? StorePolicy.OnUnavailable.PASSTHROUGH : StorePolicy.OnUnavailable.REJECT;
        this.faults = StoreFaults.draw(random, routes.routes().get(0).idempotency().lease().toNanos());
        this.upstream = new SimUpstream(this, random.split());
        this.embedded = plan.embedded() ? new EmbeddedRun(this, plan, storeDirectory, mistakes) : null;
        this.shared = embedded != null ? embedded.stores() : MemoryStore.create(100_000, 64L * 1024 * 1024, time, mistakes);
        int n = random.nextInt(3) == 0 && embedded == null ? 2 : 1;  // the embedded store: one process
        for (int i = 0; i < n; i++) {
            proxies.add(newProxy(i));
        }
        if (verbose) {
            routes.routes().forEach(r -> trace.note("route " + r));
            trace.note("store faults " + faults + ", onUnavailable " + onUnavailable + ", tasks " + tasks + ", proxies " + n);
            trace.note(plan.toString());
        }
        List<Intent> intents = Intent.draw(random);
        int agents = 1 + random.nextInt(4);
        for (int i = 0; i < agents; i++) {
            List<Intent> plan = new ArrayList<>();
            int k = 1 + random.nextInt(2);
            for (int j = 0; j < k; j++) {
                plan.add(intents.get(random.nextInt(intents.size())));
            }
            SimClient c = new SimClient(this, random.split(), plan);
            clients.add(c);
            c.start(random.nextInt(3) == 0 ? 1_000_000L * random.nextInt(2000) : 0);
        }
        if (n == 2 && random.nextInt(4) == 0) {
            at(1_000_000L * random.nextInt(5000), "crash", () -> {
                proxies.get(0).crash();
                clients.forEach(c -> c.proxyCrashed(0));
            });
        }
        if (embedded != null) {
            embedded.planCrash();
        }
    }

    /** Proxy {@code i} on the store used now: the embedded store in its process (no faults on its way there), or the shared memory store. */
    private SimProxy newProxy(int i) {
        if (embedded == null) {
            return new SimProxy(i, this, routes, shared, faults, tasks, onUnavailable, metrics, mistakes, () -> -1);
        }
        return new SimProxy(i, this, routes, shared, StoreFaults.NONE, tasks, onUnavailable, metrics, mistakes, embedded::acked);
    }

    /** The embedded store's process started again on {@code stores}: a new proxy on it takes the clients. */
    void restarted(Stores stores) {
        shared = stores;
        proxies.add(newProxy(proxies.size()));
    }

    /** Whether the one proxy process is down (the embedded store's, between its crash and its restart). */
    boolean down() {
        return embedded != null && embedded.down();
    }

    /** What {@code stage} gives: at once (the memory store), or once the embedded store ran its queued tasks. */
    <T> T read(java.util.concurrent.CompletionStage<T> stage) {
        return embedded == null ? stage.toCompletableFuture().join() : embedded.current().await(stage);
    }

    void at(long delayNanos, String what, Runnable run) {
        timed.add(new Timed(time.nanos() + Math.max(0, delayNanos), seq++, what, run));
    }

    /** Runs the first world event due now; false when none is. */
    boolean runDueEvent() {
        Timed t = timed.peek();
        if (t == null || t.at > time.nanos()) {
            return false;
        }
        timed.poll();
        trace.step(t.what, t.seq, 0, null);
        t.run.run();
        return true;
    }

    boolean eventDue() {
        Timed t = timed.peek();
        return t != null && t.at <= time.nanos();
    }

    long nextEvent() {
        return timed.isEmpty() ? -1 : timed.peek().at;
    }

    boolean noEvents() {
        return timed.isEmpty();
    }

    /** Known bugs of today's engine seen in this run (KnownBugs): reported apart, not failing the run. */
    final java.util.Map<String, String> knownBugs = new java.util.TreeMap<>();

    void knownBug(String name, String detail) {
        knownBugs.putIfAbsent(name, detail);
        trace.step("KNOWN_BUG", 0, 0, name + ": " + detail);
    }

    void violation(String v) {
        violations.add(v);
        trace.step("VIOLATION", 0, 0, v);
    }

    int nextChannelId() {
        return ++channelIds;
    }

    int nextRpcId() {
        return ++rpcIds;
    }

    SimChannel newChannel(SimChannel.Peer peer, int id) {
        ChannelId cid = new SimChannelId(id);
        SimChannel ch = new SimChannel(cid, peer, id, alloc);
        channels.add(ch);
        return ch;
    }

    SimChannel connectClient(SimChannel.Peer peer, int id, int proxy) {
        SimChannel ch = newChannel(peer, id);
        proxies.get(proxy).accept(ch);
        return ch;
    }

    boolean crashed(int proxy) {
        return proxies.get(proxy).crashed();
    }

    int liveProxy(SplittableRandom r) {
        int p = r.nextInt(proxies.size());
        return proxies.get(p).crashed() ? (p + 1) % proxies.size() : p;
    }

    boolean anyCrash() {
        return proxies.stream().anyMatch(SimProxy::crashed);
    }

    boolean routeTagged(String name) {
        return route(name).tags().contains(Route.TAG_IDEMPOTENT);
    }

    Route route(String name) {
        for (Route r : routes.routes()) {
            if (r.name().equals(name)) {
                return r;
            }
        }
        throw new IllegalArgumentException(name);
    }

    /** A channel id that names the simulated connection, the same in every run of a seed. */
    private record SimChannelId(int n) implements ChannelId {
        @Override
        public String asShortText() {
            return "sim" + n;
        }

        @Override
        public String asLongText() {
            return "sim" + n;
        }

        @Override
        public int compareTo(ChannelId o) {
            return asLongText().compareTo(o.asLongText());
        }
    }
}
