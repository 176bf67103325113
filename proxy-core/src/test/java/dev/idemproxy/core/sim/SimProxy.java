package dev.idemproxy.core.sim;

import dev.idemproxy.core.call.CallServices;
import dev.idemproxy.core.call.Dialects;
import dev.idemproxy.core.mcp.McpDialects;
import dev.idemproxy.core.route.McpPolicy;
import dev.idemproxy.core.call.TaskBudgets;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.pipeline.ProxyChannelInitializer;
import dev.idemproxy.core.pipeline.ServerPolicy;
import dev.idemproxy.core.pipeline.ServerState;
import dev.idemproxy.core.pipeline.SimPipelines;
import dev.idemproxy.core.retry.RetryBudgetPolicy;
import dev.idemproxy.core.retry.RetryRules;
import dev.idemproxy.core.retry.TaskBudget;
import dev.idemproxy.core.retry.TaskPolicy;
import dev.idemproxy.core.route.RouteTable;
import dev.idemproxy.core.secret.Redactor;
import dev.idemproxy.core.store.StorePolicy;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.util.Mistakes;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;

/**
 * One simulated proxy process: the real engine ({@link CallServices}, the client pipeline from
 * {@link ProxyChannelInitializer}, a {@link ServerState} with the run's routes) on one or two
 * {@link SimLoop}s, its own connection to the shared store ({@link StoreWire}, with the run's
 * faults; the embedded store is in its process, so the way there has none), and the simulated
 * upstream. A crash freezes its loops: nothing of it runs again, though what it sent a shared
 * store may still land. Not thread-safe.
 */
final class SimProxy {
    final int index;
    final List<SimLoop> loops = new ArrayList<>(2);
    final ServerState state = new ServerState();
    final StoreWire wire;
    final CallServices services;
    private final ProxyChannelInitializer initializer;
    private int nextLoop;
    private boolean crashed;

    /** @param acked where the embedded store's log ends as it answers a claim or an end (-1: another store) */
    SimProxy(int index, World w, RouteTable routes, Stores shared, StoreFaults faults, TaskPolicy tasks,
            StorePolicy.OnUnavailable onUnavailable, ProxyMetrics metrics, Mistakes mistakes, LongSupplier acked) {
        this.index = index;
        SplittableRandom r = w.random.split();
        int n = 1 + r.nextInt(2);
        for (int i = 0; i < n; i++) {
            loops.add(new SimLoop("p" + index + "l" + i, w.time.netty(), w.trace));
        }
        this.wire = new StoreWire("p" + index, w.time, w.trace);
        FaultyRecordStore records = new FaultyRecordStore(shared.records(), wire, faults, r.split(), w.claims, index, w, acked);
        Stores stores = SlowStores.wrap(w, index, shared, records, wire, faults, r.split());
        state.routes(routes);
        TaskBudgets budgets = TaskBudgets.stored(new TaskBudget(tasks, w.time), stores.taskBudgets());
        SplittableRandom engine = r.split();
        this.services = new CallServices(w.upstream, new RetryRules(engine.split(), w.time), tasks, budgets,
                RetryBudgetPolicy.DEFAULT, stores, onUnavailable, Redactor.BUILT_IN, engine, w.time, w.time, metrics, false,
                mistakes);
        services.dialects(Dialects.http().with(McpPolicy.class, new McpDialects(metrics)));  // as ProxyServer wires them
        this.initializer = new ProxyChannelInitializer(ServerPolicy.DEFAULT, state, services,
                new DefaultChannelGroup(ImmediateEventExecutor.INSTANCE));
    }

    /** Accepts a client connection on the next loop, with the real client pipeline. */
    void accept(SimChannel ch) {
        SimLoop loop = loops.get(nextLoop++ % loops.size());
        ch.pipeline().addLast(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel c) {
                SimPipelines.install(initializer, c);
            }
        });
        loop.register(ch);
    }

    void crash() {
        crashed = true;
        loops.forEach(SimLoop::freeze);
    }

    boolean crashed() {
        return crashed;
    }

    int inFlight() {
        return SimPipelines.inFlight(state);
    }
}
