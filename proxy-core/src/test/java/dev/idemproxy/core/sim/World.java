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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * One run of the simulation, everything drawn from its seed: the routes, one or two proxies
 * sharing one memory store (each through its own faulty connection), the simulated upstream, the
 * agents and their intents, and whether a proxy crashes. The {@link Scheduler} runs it; the
 * {@link Invariants} judge it. Not thread-safe: one simulation thread.
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
    final Stores shared;
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

    World(long seed, boolean verbose, Mistakes mistakes, ProxyMetrics metrics) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        this.trace = new Trace(time, verbose);
        this.routes = SimRoutes.draw(random);
        this.shared = MemoryStore.create(100_000, 64L * 1024 * 1024, time, mistakes);
        this.tasks = new TaskPolicy("X-Task-Id", random.nextInt(4), Duration.ofHours(1));
        this.onUnavailable = random.nextInt(6) == 0 ? StorePolicy.OnUnavailable.PASSTHROUGH : StorePolicy.OnUnavailable.REJECT;
        this.faults = StoreFaults.draw(random, routes.routes().get(0).idempotency().lease().toNanos());
        this.upstream = new SimUpstream(this, random.split());
        int n = random.nextInt(3) == 0 ? 2 : 1;
        for (int i = 0; i < n; i++) {
            proxies.add(new SimProxy(i, this, routes, shared, faults, tasks, onUnavailable, metrics, mistakes));
        }
        if (verbose) {
            routes.routes().forEach(r -> trace.note("route " + r));
            trace.note("store faults " + faults + ", onUnavailable " + onUnavailable + ", tasks " + tasks + ", proxies " + n);
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
