package dev.idemproxy.core.call;

import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.upstream.UpstreamConnection;
import dev.idemproxy.core.upstream.UpstreamConnector;
import dev.idemproxy.core.upstream.UpstreamListener;
import dev.idemproxy.core.upstream.UpstreamPipeline;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.MockTicker;
import io.netty.util.concurrent.Promise;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Upstream connections a test hands out by hand: each asked-for connection waits until
 * {@link #connect} (an {@link EmbeddedChannel} with the real upstream pipeline, on the rig's
 * clock) or {@link #refuse}; the test reads the request as it left ({@link Conn#request}) and
 * writes the answer as bytes ({@link Conn#answer}). Not thread-safe: for one test thread.
 */
final class RigUpstreams implements UpstreamConnector {
    private final MockTicker ticker;
    private final ArrayDeque<Asked> asked = new ArrayDeque<>();
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    /** Connections given back as reusable. */
    final List<EmbeddedChannel> pooled = new ArrayList<>();

    private record Asked(UpstreamListener listener, Promise<UpstreamConnection> promise) {}

    /** One connection as the test sees it. */
    final class Conn {
        final EmbeddedChannel channel;

        Conn(EmbeddedChannel channel) {
            this.channel = channel;
        }

        /** What the connection has carried since the last call, as text. */
        String request() {
            StringBuilder out = new StringBuilder();
            ByteBuf b;
            while ((b = channel.readOutbound()) != null) {
                out.append(b.toString(StandardCharsets.UTF_8));
                b.release();
            }
            return out.toString();
        }

        /** The upstream's bytes arrive. */
        Conn answer(String raw) {
            channel.writeInbound(Unpooled.copiedBuffer(raw, StandardCharsets.UTF_8));
            return this;
        }

        /** The upstream closes the connection. */
        void close() {
            channel.close();
        }
    }

    RigUpstreams(MockTicker ticker) {
        this.ticker = ticker;
    }

    int asked() {
        return asked.size();
    }

    @Override
    public UpstreamConnection tryPooled(Route route, EventLoop loop, UpstreamListener listener) {
        return null;
    }

    @Override
    public Future<UpstreamConnection> acquire(Route route, EventLoop loop, UpstreamListener listener) {
        Promise<UpstreamConnection> p = loop.newPromise();
        asked.add(new Asked(listener, p));
        return p;
    }

    /** The oldest asked-for connection comes. */
    Conn connect() {
        Asked a = asked.remove();
        EmbeddedChannel ch = EmbeddedChannel.builder().ticker(ticker).build();
        UpstreamPipeline.addHttp(ch.pipeline(), Duration.ofSeconds(30));
        channels.add(ch);
        a.promise().setSuccess(UpstreamConnection.lease(ch, a.listener(), c -> pooled.add((EmbeddedChannel) c)));
        return new Conn(ch);
    }

    /** The oldest asked-for connection cannot be made. */
    void refuse() {
        asked.remove().promise().setFailure(new ConnectException("Connection refused (the test's upstream)"));
    }

    void run() {
        for (EmbeddedChannel ch : channels) {
            ch.runPendingTasks();
            ch.runScheduledPendingTasks();
        }
    }

    void close() {
        for (EmbeddedChannel ch : channels) {
            ch.finishAndReleaseAll();
        }
    }
}
