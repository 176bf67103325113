package dev.idemproxy.app.telemetry;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.idemproxy.core.testing.Await;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A real OTLP/HTTP traces receiver for tests, on a free loopback port: {@code POST /v1/traces}
 * bodies are decoded as {@link ExportTraceServiceRequest} with the opentelemetry-proto classes and
 * kept, and answered 200 with an empty {@link ExportTraceServiceResponse}, as a collector does. A
 * {@linkplain #hanging() hanging} one reads each request and never answers (until closed): a
 * collector that is up but stuck. Tests wait for spans with {@link #awaitSpan}. Thread-safe.
 */
public final class OtlpCollector implements AutoCloseable {
    /** One span as received, with the resource it came under. */
    public record Received(Resource resource, Span span) {
        public String name() {
            return span.getName();
        }

        public String traceId() {
            return HexFormat.of().formatHex(span.getTraceId().toByteArray());
        }

        public String spanId() {
            return HexFormat.of().formatHex(span.getSpanId().toByteArray());
        }

        public String parentSpanId() {
            return HexFormat.of().formatHex(span.getParentSpanId().toByteArray());
        }

        /** The attribute's value as text (a string, or an int as written); null when the span has none. */
        public String attr(String key) {
            return OtlpCollector.attr(span.getAttributesList(), key);
        }

        /** Attribute {@code key} of link {@code i}; null when it has none. */
        public String linkAttr(int i, String key) {
            return OtlpCollector.attr(span.getLinks(i).getAttributesList(), key);
        }

        /** The span ids of its links, in order. */
        public List<String> linkedSpanIds() {
            return span.getLinksList().stream().map(l -> HexFormat.of().formatHex(l.getSpanId().toByteArray())).toList();
        }

        @Override
        public String toString() {
            return span.getKind() + " '" + span.getName() + "' " + spanId() + " parent=" + parentSpanId() + " "
                    + span.getAttributesList().stream().map(kv -> kv.getKey() + "=" + text(kv.getValue())).toList();
        }
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "otlp-collector");
        t.setDaemon(true);
        return t;
    });
    private final boolean hang;
    private final CountDownLatch closed = new CountDownLatch(1);
    private final AtomicInteger exports = new AtomicInteger();
    private final List<Received> spans = new CopyOnWriteArrayList<>();

    private OtlpCollector(boolean hang) throws IOException {
        this.hang = hang;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.createContext("/v1/traces", this::handle);
        server.setExecutor(threads);
        server.start();
    }

    /** A receiver that keeps what it is sent and answers 200. */
    public static OtlpCollector start() {
        try {
            return new OtlpCollector(false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A receiver that reads every export and never answers it. */
    public static OtlpCollector hanging() {
        try {
            return new OtlpCollector(true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex; InputStream in = ex.getRequestBody()) {
            byte[] body = in.readAllBytes();
            exports.incrementAndGet();
            if (hang) {
                closed.await();
                return;
            }
            ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(body);
            for (ResourceSpans rs : request.getResourceSpansList()) {
                for (ScopeSpans ss : rs.getScopeSpansList()) {
                    for (Span s : ss.getSpansList()) {
                        spans.add(new Received(rs.getResource(), s));
                    }
                }
            }
            byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
            ex.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            ex.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
            ex.getResponseBody().write(answer);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Where the proxy sends its spans: {@code http://127.0.0.1:PORT/v1/traces}. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/traces");
    }

    /** Export requests received so far (a hanging receiver counts them too). */
    public int exports() {
        return exports.get();
    }

    public List<Received> spans() {
        return List.copyOf(spans);
    }

    /** The first span received that {@code which} accepts, waiting up to {@code timeout} for it. */
    public Received awaitSpan(String what, Duration timeout, Predicate<Received> which) {
        Await.until(what + " in " + spans, timeout, () -> spans.stream().anyMatch(which));
        return spans.stream().filter(which).findFirst().orElseThrow();
    }

    /** The spans received that {@code which} accepts, once there are {@code n} of them (waiting up to {@code timeout}). */
    public List<Received> awaitSpans(String what, int n, Duration timeout, Predicate<Received> which) {
        Await.until(n + " " + what + " in " + spans, timeout, () -> spans.stream().filter(which).count() >= n);
        return spans.stream().filter(which).toList();
    }

    static String attr(List<KeyValue> attributes, String key) {
        for (KeyValue kv : attributes) {
            if (kv.getKey().equals(key)) {
                return text(kv.getValue());
            }
        }
        return null;
    }

    private static String text(AnyValue v) {
        return switch (v.getValueCase()) {
            case STRING_VALUE -> v.getStringValue();
            case INT_VALUE -> Long.toString(v.getIntValue());
            case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
            case DOUBLE_VALUE -> Double.toString(v.getDoubleValue());
            default -> v.toString();
        };
    }

    @Override
    public void close() {
        closed.countDown();
        server.stop(0);
        threads.shutdownNow();
    }
}
