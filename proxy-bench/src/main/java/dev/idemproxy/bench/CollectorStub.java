package dev.idemproxy.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An OTLP/HTTP traces receiver that accepts and discards, for bench/cpu.sh's A/B of
 * {@code telemetry}: {@code POST /v1/traces} is read whole, its spans counted (by walking the
 * protobuf's wire format: resource_spans, scope_spans, spans; nothing else decoded) and answered
 * 200 with an empty body, as a collector that keeps nothing would; {@code GET /count} answers
 * {@code exports=N spans=N bytes=N}. One thread, on loopback.
 *
 * <pre>java -cp proxy-bench/target/idemproxy-bench.jar dev.idemproxy.bench.CollectorStub PORT</pre>
 */
public final class CollectorStub {
    private static final AtomicLong EXPORTS = new AtomicLong();
    private static final AtomicLong SPANS = new AtomicLong();
    private static final AtomicLong BYTES = new AtomicLong();

    private CollectorStub() {}

    public static void main(String[] args) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(args[0])), 64);
        server.createContext("/v1/traces", ex -> {
            try (ex; InputStream in = ex.getRequestBody()) {
                byte[] body = in.readAllBytes();
                EXPORTS.incrementAndGet();
                BYTES.addAndGet(body.length);
                SPANS.addAndGet(count(body, 0, body.length, 0));
                ex.getResponseHeaders().set("Content-Type", "application/x-protobuf");
                ex.sendResponseHeaders(200, -1);
            }
        });
        server.createContext("/count", ex -> {
            byte[] b = ("exports=" + EXPORTS.get() + " spans=" + SPANS.get() + " bytes=" + BYTES.get() + "\n")
                    .getBytes(StandardCharsets.US_ASCII);
            try (ex) {
                ex.sendResponseHeaders(200, b.length);
                ex.getResponseBody().write(b);
            }
        });
        server.start();
    }

    /**
     * The spans in {@code b[from, to)}, a message at {@code depth}: 0 an ExportTraceServiceRequest
     * (field 1: resource spans), 1 a ResourceSpans (field 2: scope spans), 2 a ScopeSpans (field 2: spans).
     */
    static long count(byte[] b, int from, int to, int depth) {
        long spans = 0;
        int[] at = {from};
        while (at[0] < to) {
            long tag = varint(b, at);
            int field = (int) (tag >>> 3);
            switch ((int) (tag & 7)) {
                case 0 -> varint(b, at);
                case 1 -> at[0] += 8;
                case 5 -> at[0] += 4;
                case 2 -> {
                    int len = (int) varint(b, at);
                    int start = at[0];
                    at[0] += len;
                    if (depth == 0 && field == 1) {
                        spans += count(b, start, start + len, 1);
                    } else if (depth == 1 && field == 2) {
                        spans += count(b, start, start + len, 2);
                    } else if (depth == 2 && field == 2) {
                        spans++;
                    }
                }
                default -> throw new IllegalArgumentException("wire type " + (tag & 7));
            }
        }
        return spans;
    }

    private static long varint(byte[] b, int[] at) {
        long v = 0;
        for (int shift = 0; ; shift += 7) {
            byte x = b[at[0]++];
            v |= (long) (x & 0x7f) << shift;
            if (x >= 0) {
                return v;
            }
        }
    }
}
