package dev.idemproxy.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.dlq.DeadLetterPolicy;
import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.route.IdsPolicy;
import dev.idemproxy.core.retry.BackoffPolicy;
import dev.idemproxy.core.retry.Jitter;
import dev.idemproxy.core.retry.RetryPolicy;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import dev.idemproxy.core.route.Timeouts;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.memory.MemoryStore;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.OneLoopProxy;
import dev.idemproxy.core.testing.RawHttp;
import dev.idemproxy.core.testing.TestCertificates;
import dev.idemproxy.core.route.PoolPolicy;
import dev.idemproxy.core.route.TlsPolicy;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Found by the chaos suite's large run (Redis, a loaded machine): an attempt whose connection was
 * not ready within its time was judged a connect failure (nothing sent, key safe to release), yet
 * the connection arrived a moment later and carried the request anyway; the upstream executed it,
 * the call ended at its deadline with the key released, and the agent's next duplicate executed
 * it again. Here a TLS upstream completes every handshake long after the attempt's time: no
 * request may reach it, and the client is told 502 upstream-unreachable (not executed).
 */
@ExtendWith(LeakDetection.class)
class LateConnectionTest {
    static final Duration HANDSHAKE_DELAY = Duration.ofMillis(700);
    static final String BODY = "{\"title\":\"printer\"}";

    TestCertificates certs;
    EventLoopGroup group;
    Channel server;
    final AtomicInteger requests = new AtomicInteger();
    final CountDownLatch closed = new CountDownLatch(2);
    Stores store;
    ProxyServer proxy;

    @BeforeEach
    void start() throws Exception {
        certs = TestCertificates.create();
        SslContext tls = certs.serverSslContext();
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        // Reads nothing (so no handshake) until HANDSHAKE_DELAY has passed.
                        ch.config().setAutoRead(false);
                        ch.eventLoop().schedule(() -> {
                            ch.config().setAutoRead(true);
                        }, HANDSHAKE_DELAY.toMillis(), TimeUnit.MILLISECONDS);
                        ch.closeFuture().addListener(f -> closed.countDown());
                        ch.pipeline().addLast(tls.newHandler(ch.alloc()), new HttpServerCodec(), new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                if (msg instanceof HttpRequest) {
                                    requests.incrementAndGet();  // and never answered
                                }
                                ReferenceCountUtil.release(msg);
                            }
                        });
                    }
                }).bind("127.0.0.1", 0).sync().channel();
        URI upstream = URI.create("https://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort());

        store = MemoryStore.create(1000, Clock.systemUTC());
        IdempotencyPolicy idem = OneLoopProxy.protectPosts(Duration.ofHours(1));
        // An attempt has 200 ms; the retry waits 1.5 s, so attempt 1's late connection arrives before attempt 2 starts.
        Timeouts timeouts = new Timeouts(Duration.ofSeconds(5), Duration.ofMillis(200), Duration.ofSeconds(60), Duration.ofSeconds(10));
        RetryPolicy retry = new RetryPolicy(2, Set.of("connect-failure"),
                new BackoffPolicy(Duration.ofMillis(1500), Duration.ofMillis(1500), 1.0, Jitter.parse("none")), Duration.ofSeconds(60));
        Route route = new Route("tickets", new RouteMatch(null, "/tickets", Set.of()), upstream, Set.of(), timeouts,
                idem, retry, IdsPolicy.DEFAULT, null, DeadLetterPolicy.DEFAULT, new TlsPolicy(certs.caPemFile(), null),
                PoolPolicy.DEFAULT);
        proxy = OneLoopProxy.start(route, store);
    }

    @AfterEach
    void stop() throws Exception {
        proxy.stop(Duration.ofSeconds(1));
        store.close();
        server.close().sync();
        group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).sync();
        certs.close();
    }

    @Test
    void aConnectionArrivingAfterItsAttemptWasJudgedUnsentCarriesNothing() throws Exception {
        try (RawHttp client = RawHttp.connect("127.0.0.1", proxy.address().getPort())) {
            client.write("POST /tickets HTTP/1.1\r\nHost: t\r\nIdempotency-Key: k-late\r\nContent-Length: " + BODY.length()
                    + "\r\n\r\n" + BODY);
            RawHttp.Response r = client.readResponse();
            assertThat(r.status()).as(r.bodyAsString()).isEqualTo(502);
            assertThat(r.bodyAsString()).contains("upstream-unreachable");
        }
        // Both late connections (one per attempt) are closed by the proxy unused.
        assertThat(closed.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(requests.get()).as("requests that reached the upstream").isZero();
    }
}
