package dev.idemproxy.core.testing;

import static java.util.Objects.requireNonNull;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A scriptable HTTP/1.1 origin on 127.0.0.1 (plain or TLS) for end-to-end tests of the proxy: it
 * records every request it receives and answers each with the next one-shot {@link UpstreamAction}
 * from a FIFO queue, or with the default action when the queue is empty (initially
 * {@code respond(200, "ok")}).
 *
 * <pre>{@code
 * try (TestUpstream upstream = TestUpstream.start()) {
 *     upstream.enqueue(UpstreamAction.respond(503), UpstreamAction.respond(200, "done"));
 *     // ... drive the proxy at upstream.uri() ...
 *     List<RecordedRequest> seen = upstream.awaitRequests(2, Duration.ofSeconds(5));
 *     assertThat(upstream.connectionsAccepted()).isEqualTo(1);
 * }
 * }</pre>
 *
 * <p>Request bodies are not aggregated by Netty: they are copied into the record chunk by chunk (up
 * to {@link #MAX_RECORDED_BODY}) or, for {@link UpstreamAction#drainUploads()}, only counted. A
 * malformed request gets {@code 400} and a closed connection and is not recorded; nor is one whose
 * body is malformed or cut short by the peer closing. Runs on its own
 * two NIO event loop threads. Thread-safe.
 */
public final class TestUpstream implements AutoCloseable {

    /** The most body bytes kept per recorded request; longer bodies are counted, not kept. */
    public static final int MAX_RECORDED_BODY = 16 * 1024 * 1024;

    /** Request line and header block limits, generous so the proxy's own limits are what tests meet. */
    private static final int MAX_HEAD_BYTES = 64 * 1024;
    private static final String HOST = "127.0.0.1";

    private final EventLoopGroup group;
    private final Channel serverChannel;
    private final int port;
    private final ChannelGroup connections = new DefaultChannelGroup("test-upstream", GlobalEventExecutor.INSTANCE);
    private final boolean tls;
    private final Queue<UpstreamAction> script = new ConcurrentLinkedQueue<>();
    private volatile UpstreamAction defaultAction = UpstreamAction.respond(200, "ok");
    private final AtomicLong connectionsAccepted = new AtomicLong();
    private final AtomicInteger responsesStarted = new AtomicInteger();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition recordedMore = lock.newCondition();
    private final List<RecordedRequest> requests = new ArrayList<>();

    private TestUpstream(SslContext sslContext) {
        this.tls = sslContext != null;
        this.group = new MultiThreadIoEventLoopGroup(2, new DefaultThreadFactory("test-upstream", true),
                NioIoHandler.newFactory());
        try {
            this.serverChannel = new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            long id = connectionsAccepted.incrementAndGet();
                            connections.add(ch);
                            ChannelPipeline p = ch.pipeline();
                            if (sslContext != null) {
                                p.addLast("tls", sslContext.newHandler(ch.alloc()));
                            }
                            p.addLast(UpstreamHandler.CODEC, new HttpServerCodec(new HttpDecoderConfig()
                                    .setMaxInitialLineLength(MAX_HEAD_BYTES)
                                    .setMaxHeaderSize(MAX_HEAD_BYTES)));
                            p.addLast("continue", new HttpServerExpectContinueHandler());
                            p.addLast("upstream", new UpstreamHandler(TestUpstream.this, id));
                        }
                    })
                    .bind(new InetSocketAddress(HOST, 0))
                    .syncUninterruptibly()
                    .channel();
            this.port = ((InetSocketAddress) serverChannel.localAddress()).getPort();
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    /** Starts a plain-HTTP upstream on 127.0.0.1 and an ephemeral port. */
    public static TestUpstream start() {
        return new TestUpstream(null);
    }

    /** Starts an HTTPS upstream on 127.0.0.1 and an ephemeral port, e.g. with {@link TestCertificates#serverSslContext()}. */
    public static TestUpstream start(SslContext serverSslContext) {
        return new TestUpstream(requireNonNull(serverSslContext, "serverSslContext"));
    }

    // ------------------------------------------------------------------ script

    /** Sets the action used whenever the one-shot queue is empty. */
    public TestUpstream defaultAction(UpstreamAction action) {
        this.defaultAction = requireNonNull(action, "action");
        return this;
    }

    /** Appends one-shot actions: each answers exactly one request, in order of arrival. */
    public TestUpstream enqueue(UpstreamAction... actions) {
        for (UpstreamAction a : actions) {
            script.add(requireNonNull(a, "action"));
        }
        return this;
    }

    /** The number of one-shot actions not yet used. */
    public int pendingActions() {
        return script.size();
    }

    UpstreamAction nextAction() {
        UpstreamAction next = script.poll();
        return next != null ? next : defaultAction;
    }

    // ------------------------------------------------------------------ address

    public int port() {
        return port;
    }

    /** {@code http://127.0.0.1:PORT} (or {@code https://…} when started with TLS), no trailing slash. */
    public URI uri() {
        return URI.create((tls ? "https" : "http") + "://" + HOST + ":" + port());
    }

    // ------------------------------------------------------------------ observations

    void record(Exchange ex, int remotePort) {
        lock.lock();
        try {
            requests.add(ex.record(requests.size(), remotePort));
            recordedMore.signalAll();
        } finally {
            lock.unlock();
        }
    }

    void responseStarted() {
        responsesStarted.incrementAndGet();
    }

    /** The number of complete requests received (their body fully arrived). */
    public int requestCount() {
        lock.lock();
        try {
            return requests.size();
        } finally {
            lock.unlock();
        }
    }

    /** A snapshot of the requests received so far, in arrival order. */
    public List<RecordedRequest> requests() {
        lock.lock();
        try {
            return List.copyOf(requests);
        } finally {
            lock.unlock();
        }
    }

    /** The {@code index}-th request received (0-based). */
    public RecordedRequest request(int index) {
        lock.lock();
        try {
            return requests.get(index);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until at least {@code n} requests have been received and returns the snapshot.
     *
     * @throws AssertionError when {@code timeout} passes first, listing what did arrive
     */
    public List<RecordedRequest> awaitRequests(int n, Duration timeout) throws InterruptedException {
        long remaining = timeout.toNanos();
        lock.lock();
        try {
            while (requests.size() < n) {
                if (remaining <= 0) {
                    throw new AssertionError("expected >= " + n + " requests at the test upstream within "
                            + timeout + ", got " + requests.size() + ": " + requests);
                }
                remaining = recordedMore.awaitNanos(remaining);
            }
            return List.copyOf(requests);
        } finally {
            lock.unlock();
        }
    }

    /** The number of TCP connections accepted so far (keep-alive reuse keeps this low). */
    public long connectionsAccepted() {
        return connectionsAccepted.get();
    }

    /** The number of accepted connections still open. */
    public int openConnections() {
        return connections.size();
    }

    /** The number of responses begun: a head written, or the first raw bytes of a reset response. */
    public int responsesStarted() {
        return responsesStarted.get();
    }

    /** Closes every accepted connection (FIN) but keeps listening. */
    public void closeConnections() {
        connections.close().syncUninterruptibly();
    }

    /** Stops listening, closes every connection and releases the event loops. Idempotent. */
    @Override
    public void close() {
        serverChannel.close().syncUninterruptibly();
        connections.close().syncUninterruptibly();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Override
    public String toString() {
        return "TestUpstream[" + uri() + ", requests=" + requestCount() + ", connections=" + connectionsAccepted() + "]";
    }
}
