package dev.idemproxy.app.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Stands in for the proxy's listener in replay tests: a JDK HTTP server on loopback that records
 * every request it gets and answers with a scripted status and an {@code X-Call-Id}.
 */
public final class FakeProxyListener implements AutoCloseable {
    /** One request as received. */
    public record Received(String method, String uri, Map<String, List<String>> headers, byte[] body) {
        public List<String> header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .findFirst().map(Map.Entry::getValue).orElse(List.of());
        }
    }

    private final HttpServer server;
    private final AtomicInteger status = new AtomicInteger(200);
    private final List<Received> received = new CopyOnWriteArrayList<>();

    public FakeProxyListener() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    private void handle(HttpExchange ex) throws IOException {
        byte[] body;
        try (InputStream in = ex.getRequestBody()) {
            body = in.readAllBytes();
        }
        received.add(new Received(ex.getRequestMethod(), ex.getRequestURI().toString(),
                Map.copyOf(ex.getRequestHeaders()), body));
        ex.getResponseHeaders().set("X-Call-Id", "replay-call-" + received.size());
        ex.sendResponseHeaders(status.get(), -1);
        ex.close();
    }

    public void answer(int httpStatus) {
        status.set(httpStatus);
    }

    public InetSocketAddress address() {
        return server.getAddress();
    }

    public List<Received> received() {
        return new ArrayList<>(received);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
