package dev.idemproxy.bench;

import dev.idemproxy.core.util.ProxyHeaders;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The header-map work of one forwarded GET: the decoder adds the request's names as they came off
 * the wire, the proxy sets Host and X-Forwarded-*, and the upstream's response names are added to
 * a second map; once with Netty's default name check and once with {@link ProxyHeaders}'.
 */
@State(org.openjdk.jmh.annotations.Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class HeaderNamesBenchmark {
    static final byte[][] REQUEST = bytes("Host", "User-Agent", "Accept", "Accept-Encoding", "Authorization", "X-Request-Id");
    static final byte[][] RESPONSE = bytes("Server", "Date", "Content-Type", "Content-Length", "Connection", "Cache-Control");

    final HttpHeadersFactory netty = DefaultHttpHeadersFactory.headersFactory();
    final HttpHeadersFactory proxy = ProxyHeaders.HEADERS;

    @Benchmark
    public int nettyCheck() {
        return forwardedGet(netty);
    }

    @Benchmark
    public int proxyCheck() {
        return forwardedGet(proxy);
    }

    static int forwardedGet(HttpHeadersFactory factory) {
        HttpHeaders req = factory.newHeaders();
        for (byte[] name : REQUEST) {
            req.add(new AsciiString(name, 0, name.length, true), "v");  // as the decoder makes names
        }
        req.set(HttpHeaderNames.HOST, "upstream:8080");
        req.set(ProxyHeaders.X_FORWARDED_FOR, "127.0.0.1");
        req.set(ProxyHeaders.X_FORWARDED_PROTO, "http");
        req.set(ProxyHeaders.X_FORWARDED_HOST, "proxy:8080");
        HttpHeaders resp = factory.newHeaders();
        for (byte[] name : RESPONSE) {
            resp.add(new AsciiString(name, 0, name.length, true), "v");
        }
        return req.size() + resp.size();
    }

    private static byte[][] bytes(String... names) {
        byte[][] b = new byte[names.length][];
        for (int i = 0; i < names.length; i++) {
            b[i] = names[i].getBytes(StandardCharsets.US_ASCII);
        }
        return b;
    }
}
