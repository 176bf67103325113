package dev.idemproxy.core.forward;

import dev.idemproxy.core.util.Ticker;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import java.nio.ByteBuffer;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What an intercepted CONNECT pays for its certificate: a cold mint (a leaf signed by the CA, and
 * the server context around it) against a cache hit, and, for scale, the full TLS handshake the
 * client then makes with that context (in memory, two JDK engines, no session resumption). A hit
 * should be far below a handshake. In this package because the classes are package-private.
 * Scores are µs per operation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class LeafMintBenchmark {
    private LeafMinter minter;
    private LeafContexts contexts;
    private SslContext server;
    private SSLContext client;
    private final AtomicLong hosts = new AtomicLong();

    @Setup
    public void setUp() throws Exception {
        SecureRandom random = new SecureRandom();
        LocalCa ca = LocalCa.generate(Clock.systemUTC(), random);
        minter = new LeafMinter(ca, Clock.systemUTC(), random);
        contexts = new LeafContexts(minter, Runnable::run, Ticker.system());
        server = contexts.get("api.stripe.com").join();
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", ca.certificate());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        client = SSLContext.getInstance("TLS");
        client.init(null, tmf.getTrustManagers(), random);
    }

    /** The signature alone: a new leaf for a host. */
    @Benchmark
    public Object mintCertificate() {
        return minter.mint("h" + hosts.incrementAndGet() + ".example");
    }

    /** A host seen for the first time: the leaf and its server context. */
    @Benchmark
    public Object coldMint() throws SSLException {
        return contexts.newContext("h" + hosts.incrementAndGet() + ".example");
    }

    /** A host seen before: the cached context, answered at once. */
    @Benchmark
    public Object cacheHit() {
        return contexts.get("api.stripe.com").getNow(null);
    }

    /** A full TLS 1.3 handshake against the minted context, both ends in this thread. */
    @Benchmark
    public Object handshake() throws SSLException {
        SSLEngine s = server.newEngine(ByteBufAllocator.DEFAULT);
        SSLEngine c = client.createSSLEngine("api.stripe.com", 443);
        c.setUseClientMode(true);
        javax.net.ssl.SSLParameters p = c.getSSLParameters();
        p.setEndpointIdentificationAlgorithm("HTTPS");
        c.setSSLParameters(p);
        ByteBuffer empty = ByteBuffer.allocate(0);
        ByteBuffer toServer = ByteBuffer.allocate(c.getSession().getPacketBufferSize());
        ByteBuffer toClient = ByteBuffer.allocate(s.getSession().getPacketBufferSize());
        ByteBuffer sink = ByteBuffer.allocate(Math.max(c.getSession().getApplicationBufferSize(),
                s.getSession().getApplicationBufferSize()));
        c.beginHandshake();
        s.beginHandshake();
        for (int i = 0; i < 100 && !(done(c) && done(s)); i++) {
            step(c, empty, toServer, toClient, sink);
            step(s, empty, toClient, toServer, sink);
        }
        if (!(done(c) && done(s))) {
            throw new IllegalStateException("handshake did not finish: " + c.getHandshakeStatus() + " " + s.getHandshakeStatus());
        }
        return c.getSession();
    }

    private static boolean done(SSLEngine e) {
        SSLEngineResult.HandshakeStatus h = e.getHandshakeStatus();
        return h == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING || h == SSLEngineResult.HandshakeStatus.FINISHED;
    }

    /** One engine: runs its tasks, writes what it has to {@code out}, reads what came in {@code in}. */
    private static void step(SSLEngine e, ByteBuffer empty, ByteBuffer out, ByteBuffer in, ByteBuffer sink) throws SSLException {
        Runnable task;
        while ((task = e.getDelegatedTask()) != null) {
            task.run();
        }
        if (e.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
            e.wrap(empty, out);
        }
        in.flip();
        while (in.hasRemaining() && e.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_UNWRAP) {
            SSLEngineResult r = e.unwrap(in, sink);
            sink.clear();
            while ((task = e.getDelegatedTask()) != null) {
                task.run();
            }
            if (r.getStatus() != SSLEngineResult.Status.OK) {
                break;
            }
        }
        in.compact();
    }
}
