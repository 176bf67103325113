package dev.idemproxy.core.sim;

import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.upstream.UpstreamConnection;
import dev.idemproxy.core.upstream.UpstreamConnector;
import dev.idemproxy.core.upstream.UpstreamListener;
import dev.idemproxy.core.upstream.UpstreamPipeline;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.ConnectException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The simulated upstream as the engine leases it: an {@link UpstreamConnector} whose connections
 * are {@link SimChannel}s on the caller's loop with the real upstream pipeline
 * ({@link UpstreamPipeline#addHttp}), each with an {@link UpstreamServer} at its other end.
 * A connect takes a drawn time and fails now and then ({@code connect-failure}); a connection
 * whose exchange ended cleanly comes back to an idle list per loop and is leased again.
 * Not thread-safe.
 */
final class SimUpstream implements UpstreamConnector {
    private final World world;
    private final SplittableRandom random;
    private final UpstreamBehaviour behaviour;
    private final double connectFailure;
    private final Map<EventLoop, ArrayDeque<Channel>> idle = new HashMap<>();
    private final List<UpstreamServer> servers = new ArrayList<>();

    SimUpstream(World world, SplittableRandom random) {
        this.world = world;
        this.random = random;
        this.behaviour = new UpstreamBehaviour(world, random);
        this.connectFailure = random.nextInt(3) == 0 ? random.nextDouble() * 0.2 : 0;
    }

    List<UpstreamServer> servers() {
        return servers;
    }

    @Override
    public UpstreamConnection tryPooled(Route route, EventLoop loop, UpstreamListener listener) {
        ArrayDeque<Channel> q = idle.get(loop);
        while (q != null && !q.isEmpty()) {
            Channel ch = q.poll();
            if (ch.isActive()) {
                world.trace.step("pooled", ((SimChannel) ch).id().hashCode(), 0, null);
                return UpstreamConnection.lease(ch, listener, this::takeBack);
            }
        }
        return null;
    }

    @Override
    public Future<UpstreamConnection> acquire(Route route, EventLoop loop, UpstreamListener listener) {
        UpstreamConnection pooled = tryPooled(route, loop, listener);
        Promise<UpstreamConnection> p = loop.newPromise();
        if (pooled != null) {
            p.setSuccess(pooled);
            return p;
        }
        boolean fails = random.nextDouble() < connectFailure;
        long delay = random.nextInt(4) == 0 ? 1_000_000L * random.nextInt((int) route.timeouts().connect().toMillis() * 2) : 0;
        world.at(delay, "connect", () -> {
            if (fails) {
                world.trace.step("connectFail", 0, 0, null);
                p.tryFailure(new ConnectException("simulated: connection refused"));
                return;
            }
            UpstreamServer server = new UpstreamServer(world, behaviour, world.nextChannelId());
            SimChannel ch = world.newChannel(server, server.id());
            server.attach(ch);
            servers.add(server);
            loop.register(ch);
            UpstreamPipeline.addHttp(ch.pipeline(), route.timeouts().idle());
            UpstreamConnection conn = UpstreamConnection.lease(ch, listener, this::takeBack);
            world.trace.step("connected", server.id(), 0, null);
            if (!p.trySuccess(conn)) {
                conn.release(false);
            }
        });
        return p;
    }

    private void takeBack(Channel ch) {
        if (ch.isActive()) {
            idle.computeIfAbsent(ch.eventLoop(), l -> new ArrayDeque<>()).add(ch);
        }
    }
}
