package dev.idemproxy.app.admin;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.call.ReplayAuthority;
import dev.idemproxy.core.secret.Redactor;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredRequest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Sends a dead letter's stored request through the proxy's own listener, the normal path
 * (idempotency, retries), as an agent would: origin-form to the listener, or, when the request
 * named a host and its route matches on one, absolute-form with the listener as HTTP proxy so
 * that the host-based route still matches (an absolute-form request matches only routes that
 * name {@code match.host}, CONTRACT §3, so a host-less route's replay goes origin-form). Headers the JDK client sets itself, hop-by-hop headers, a stale absolute deadline and
 * every header whose value was redacted are not re-sent.
 *
 * <p>Asynchronous: {@link #send} returns at once and completes on the HTTP client's threads.
 * Thread-safe.
 */
final class DlqReplayer {
    /**
     * What the DLQ writer stores in place of a credential header's value; such a header is never
     * re-sent. Entries written by earlier builds hold {@link #OLD_REDACTED} instead.
     */
    static final String REDACTED = Redactor.MASK;
    static final String OLD_REDACTED = "<redacted>";

    /** Lower-case names never re-sent: set by the JDK client, hop-by-hop, or stale on replay. */
    static final Set<String> NOT_RESENT = Set.of("host", "connection", "content-length", "expect", "upgrade",
            "keep-alive", "proxy-connection", "proxy-authorization", "te", "trailer", "transfer-encoding",
            "http2-settings", "x-request-deadline");

    /** The replay's outcome through the proxy: its status and the new call's id, if it said. */
    record Result(int status, String callId) {
        boolean succeeded() {
            return status >= 200 && status < 300;
        }
    }

    private final Supplier<InetSocketAddress> proxyAddress;
    private final Duration timeout;
    /** Made on the first replay: a JDK HttpClient costs a selector thread and, once, the TLS stack's classes. */
    private HttpClient direct;
    private HttpClient viaProxy;
    private final String replayToken;
    /** Whether the route of that name matches on its {@code match.host}: its replays go absolute-form. */
    private final Predicate<String> routeNamesHost;

    /**
     * @param proxyAddress the proxy listener's bound address, read on every replay (a wildcard
     *                     address is reached through loopback)
     * @param timeout      how long a replay may take, retries included
     */
    DlqReplayer(Supplier<InetSocketAddress> proxyAddress, Duration timeout) {
        this(proxyAddress, timeout, null);
    }

    /**
     * @param replayToken the proxy's per-process secret that lets a replay keep its original call
     *                    id ({@code X-Idemproxy-Replay}); null: replays get new call ids
     */
    DlqReplayer(Supplier<InetSocketAddress> proxyAddress, Duration timeout, String replayToken) {
        this(proxyAddress, timeout, replayToken, route -> true);
    }

    /** @param routeNamesHost whether the live route of a name has a {@code match.host} */
    DlqReplayer(Supplier<InetSocketAddress> proxyAddress, Duration timeout, String replayToken, Predicate<String> routeNamesHost) {
        this.routeNamesHost = requireNonNull(routeNamesHost, "routeNamesHost");
        this.replayToken = replayToken;
        this.proxyAddress = requireNonNull(proxyAddress, "proxyAddress");
        this.timeout = requireNonNull(timeout, "timeout");
    }

    private synchronized HttpClient client(boolean proxied) {
        if (proxied) {
            if (viaProxy == null) {
                viaProxy = client(HttpClient.newBuilder().proxy(new ListenerSelector()));
            }
            return viaProxy;
        }
        if (direct == null) {
            direct = client(HttpClient.newBuilder());
        }
        return direct;
    }

    private static HttpClient client(HttpClient.Builder b) {
        return b.version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    /** Sends {@code req}; the stage fails when the listener cannot be reached or the request cannot be built. */
    CompletionStage<Result> send(StoredRequest req) {
        return send(req, null, null, null, null);
    }

    /**
     * Sends {@code req}, recorded under route {@code route} (null: unknown), as a replay of call
     * {@code callId} (kept when the proxy's replay token is known), under its record
     * {@code recordId}, and started at {@code createdAt} (null: unknown, the replay's own start)
     * for its receipt.
     */
    CompletionStage<Result> send(StoredRequest req, String route, String callId, String recordId, Instant createdAt) {
        HttpRequest request;
        boolean proxied;
        try {
            Optional<String> host = header(req, "host");
            proxied = !req.uri().startsWith("/") || (host.isPresent() && (route == null || routeNamesHost.test(route)));
            URI uri = proxied ? URI.create(absolute(req.uri(), host.orElse(null)))
                    : URI.create("http://" + authority(listener()) + req.uri());
            request = build(req, uri, callId, recordId, createdAt);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return client(proxied).sendAsync(request, HttpResponse.BodyHandlers.discarding())
                .thenApply(r -> new Result(r.statusCode(), r.headers().firstValue("x-call-id").orElse(null)));
    }

    private HttpRequest build(StoredRequest req, URI uri, String callId, String recordId, Instant createdAt) {
        byte[] body = req.body();
        HttpRequest.Builder b = HttpRequest.newBuilder(uri)
                .timeout(timeout)
                .method(req.method(), body.length == 0
                        ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        for (StoredHeader h : resent(req.headers())) {
            try {
                b.header(h.name(), h.value());
            } catch (IllegalArgumentException e) {
                // a name or value the JDK client refuses (restricted or malformed): not re-sent
            }
        }
        if (replayToken != null && callId != null) {
            b.header(ReplayAuthority.TOKEN_HEADER, replayToken);
            b.header("X-Call-Id", callId);
            if (recordId != null) {
                b.header(ReplayAuthority.RECORD_HEADER, recordId);
            }
            if (createdAt != null) {
                b.header(ReplayAuthority.CREATED_HEADER, createdAt.toString());
            }
        }
        return b.build();
    }

    /** The headers that are re-sent, in their stored order. */
    static List<StoredHeader> resent(List<StoredHeader> headers) {
        return headers.stream()
                .filter(h -> !NOT_RESENT.contains(h.name().toLowerCase(Locale.ROOT)))
                .filter(h -> !redacted(h.value()))
                .toList();
    }

    /**
     * An absolute {@code http://} target: absolute-form as received (an {@code https} target is
     * sent as {@code http}: the proxy routes on host and path, and the route picks the upstream
     * scheme), or origin-form joined to its Host header.
     */
    static String absolute(String uri, String host) {
        if (uri.startsWith("/")) {
            return "http://" + host + uri;
        }
        String lower = uri.toLowerCase(Locale.ROOT);
        if (lower.startsWith("https://")) {
            return "http://" + uri.substring("https://".length());
        }
        if (lower.startsWith("http://")) {
            return "http://" + uri.substring("http://".length());
        }
        throw new IllegalArgumentException("stored request target '" + uri
                + "' (expected: origin-form /path or absolute-form http(s)://host/path)");
    }

    private static Optional<String> header(StoredRequest req, String name) {
        return req.headers().stream().filter(h -> h.name().equalsIgnoreCase(name))
                .map(StoredHeader::value).filter(v -> !v.isBlank() && !redacted(v)).findFirst();
    }

    /** Whether a stored value is the DLQ writer's stand-in for a credential it did not keep. */
    static boolean redacted(String value) {
        return value.equals(REDACTED) || value.contains(OLD_REDACTED);
    }

    /** The listener address, a wildcard bind replaced by loopback. */
    private InetSocketAddress listener() {
        InetSocketAddress a = requireNonNull(proxyAddress.get(), "proxy address");
        if (a.getAddress() == null || a.getAddress().isAnyLocalAddress()) {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), a.getPort());
        }
        return a;
    }

    private static String authority(InetSocketAddress a) {
        String host = a.getAddress().getHostAddress();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    /** Routes every proxied replay to the listener's current address. */
    private final class ListenerSelector extends ProxySelector {
        @Override
        public List<Proxy> select(URI uri) {
            return List.of(new Proxy(Proxy.Type.HTTP, listener()));
        }

        @Override
        public void connectFailed(URI uri, SocketAddress sa, IOException ioe) {
            // the send's stage fails with the cause; nothing to remember
        }
    }
}
